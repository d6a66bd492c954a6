"""Contact laws in model files: each law writes and reads its own table (``laws.FILE_LAWS``,
``ContactLaw.file_table``, ``laws.law_from_table``), so that a new law needs no edit of the
model-file code (``io.model_schema``, ``io.model_build``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

from fe_contact import Body, ContactPair, Joint, Line, Model, Point, Sliding, TreeModel, Unilateral
from fe_contact.io.model_file import ModelFileError, load_model, model_text, save_model
from fe_contact.laws import FILE_LAWS


@dataclass(frozen=True)
class Directional(Sliding):
    """A law defined outside the library: Coulomb with a different coefficient for each slip
    direction (``mu`` for v_t > 0, ``mu_back`` for v_t < 0)."""

    mu_back: float = 0.0
    file_name: ClassVar[str | None] = "directional"

    def friction_factor(self, slip_velocity, direction=None):
        sign = np.sign(slip_velocity) if direction is None else direction
        return float(sign) * (self.mu if sign > 0 else self.mu_back)


def block(law) -> Model:
    tree = TreeModel(
        bodies=(Body(0.0, 0.0), Body(0.5, 0.0)),
        joints=(Joint("prismatic"), Joint("prismatic", parent=0, angle=np.pi / 2)),
    )
    floor = Line((0.0, 0.0), (0.0, 1.0))
    return Model(tree=tree, contacts=(ContactPair("block", Point(body=1), floor, law),))


def test_a_law_defined_outside_the_library_round_trips(tmp_path):
    """Its table is its dataclass fields, read back by the class its ``file_name`` names."""
    model = block(Directional(mu=0.2, mu_back=0.35))
    assert FILE_LAWS["directional"] is Directional
    text = model_text(model)
    assert 'law = "directional"' in text and "mu_back = 0.35" in text
    loaded = load_model(save_model(model, tmp_path / "m.toml")).model
    assert loaded == model and type(loaded.contacts[0].law) is Directional


def test_poisson_reversibility_is_written():
    """Unilateral's reversibility nu (Slavic-Boltezar (003), sec. 2.2) was left out of the file
    (a Poisson law with nu = 0.5 read back with nu = 0)."""
    law = Unilateral(0.3, 0.5, 0.2, impact="poisson", reversibility=0.5)
    assert law.file_table()["reversibility"] == 0.5


def test_a_key_of_another_law_is_refused_with_the_laws_that_take_it(tmp_path):
    path = save_model(block(Sliding(0.2)), tmp_path / "m.toml")
    path.write_text(path.read_text().replace("mu = 0.2", "mu = 0.2\nmu_back = 0.1"))
    with pytest.raises(ModelFileError) as info:
        load_model(path)
    (problem,) = info.value.problems
    assert problem.path == "contacts.block.mu_back"
    assert "allowed only with law 'directional'" in problem.message


def test_a_law_subclass_without_its_own_file_name_is_not_written():
    @dataclass(frozen=True)
    class Anonymous(Sliding):
        pass

    with pytest.raises(ValueError, match="Anonymous law cannot be written to a model file"):
        Anonymous(0.1).file_table()


def test_a_second_law_under_a_taken_name_is_refused():
    """Registering another class under an existing ``file_name`` raised nothing and silently
    replaced the law every model file with ``law = "sliding"`` reads."""
    with pytest.raises(ValueError, match=r"file_name: got 'sliding'.*Sliding.*allowed: a name"):

        @dataclass(frozen=True)
        class Impostor(Sliding):
            file_name: ClassVar[str | None] = "sliding"

    assert FILE_LAWS["sliding"] is Sliding


def test_a_compliant_law_round_trips(tmp_path):
    """Compliant (Bauchau (000), sec. 7) is a model-file law: ``law = "compliant"`` with its
    fields (kind, stiffness, damping, mu, mu_s, v0, rolling) as keys."""
    from fe_contact.laws import Compliant

    law = Compliant("linear", 2e5, damping=0.3, mu=0.2, mu_s=0.25, v0=1e-3, rolling=True)
    model = block(law)
    loaded = load_model(save_model(model, tmp_path / "m.toml")).model
    assert loaded == model and loaded.contacts[0].law == law
    path = tmp_path / "m.toml"
    path.write_text(path.read_text().replace("stiffness = 200000.0", "stiffness = -1.0"))
    with pytest.raises(ModelFileError) as info:
        load_model(path)
    (problem,) = info.value.problems
    assert problem.path == "contacts.block.stiffness" and problem.value == -1.0
    assert "Compliant.stiffness" in problem.message
