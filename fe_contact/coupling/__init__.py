"""Coupling between the multibody tree and the structures: contact, friction, partitioning."""
