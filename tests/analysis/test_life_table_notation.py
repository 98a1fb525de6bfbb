"""In a module written in a life table's notation (`lx`, `npx`, `D_x`...), a parameter `x`
is the insured's age (analysis/inputs/leaves.py `actuarial_notation`); elsewhere an `x` is
a coordinate."""

from __future__ import annotations

from analysis_kit import model_of, verdict

ANNUITIES = """\
class TablaMortalidad:
    def __init__(self, datos_lx):
        self.datos_lx = datos_lx

    def npx(self, x, n):
        return self.datos_lx.get(x + n, 0) / self.datos_lx[x]


def anualidad_temporal(x, n, i, tabla: TablaMortalidad):
    suma = 0.0
    for k in range(1, n + 1):
        suma += (1 + i) ** -k * tabla.npx(x, k)
    return suma
"""

GEOMETRY = """\
def shifted(x, dx, px):
    return x + dx * px
"""


def test_x_of_a_life_table_is_the_age() -> None:
    model = model_of(ANNUITIES, "anualidad_temporal")
    assert [leaf.display for leaf in model.protected] == ["x"]
    assert model.protected[0].category == "age"
    assert verdict(ANNUITIES, "TablaMortalidad.npx").biased_attributes == ["age"]


def test_x_of_a_derivative_or_a_pixel_is_no_age() -> None:
    assert model_of(GEOMETRY, "shifted").protected == []
