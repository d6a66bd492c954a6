"""fe_contact: planar flexible multibody dynamics with sliding frictional contact."""

__version__ = "0.1.0"
