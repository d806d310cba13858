"""dl4nlp.widgets.sweep, the driver `make bench` runs on every interactive figure, on a toy figure."""

import ipywidgets as widgets
import matplotlib.pyplot as plt
import pytest

from dl4nlp.widgets import InteractiveFigure, Option, control_values, sweep


def toy_figure(calls: list) -> InteractiveFigure:
    def draw_toy(scale, n, kind, grid):
        calls.append({"scale": scale, "n": n, "kind": kind, "grid": grid})
        if scale > 1.4 and n > 900:
            raise OverflowError(f"{scale} ** {n} is too large")
        fig, ax = plt.subplots()
        ax.plot([scale**i for i in range(min(n, 50))], kind)
        ax.grid(grid)
        return fig

    return InteractiveFigure(
        draw_toy,
        {
            "scale": widgets.FloatSlider(value=1.0, min=0.5, max=1.5, step=0.01),
            "n": widgets.IntSlider(value=10, min=1, max=1000),
            "kind": widgets.Dropdown(options=[("line", "-"), ("dots", "o"), ("steps", "--")], value="-"),
            "grid": widgets.Checkbox(value=False),
        },
    )


def test_control_values_cover_each_range():
    every, ends = control_values(widgets.FloatSlider(min=0.5, max=1.5, step=0.01), interior=3)
    assert every == [0.5, 0.75, 1.0, 1.25, 1.5] and ends == [0.5, 1.5]
    every, ends = control_values(widgets.IntSlider(min=1, max=2000), interior=5)
    assert every[0] == 1 and every[-1] == 2000 and len(every) == 7 and all(isinstance(v, int) for v in every)
    every, _ = control_values(widgets.FloatLogSlider(min=-2, max=2, base=10), interior=1)
    assert every == pytest.approx([0.01, 1.0, 100.0])
    every, ends = control_values(widgets.IntRangeSlider(min=0, max=10), interior=1)
    assert ends == [(0, 10), (0, 0), (10, 10)] and every[3:] == [(0, 5), (5, 10)]
    assert control_values(widgets.SelectionSlider(options=["a", "b", "c"]))[0] == [Option(0), Option(1), Option(2)]
    assert control_values(widgets.Combobox(options=["x", "y"])) == (["x", "y"], ["x", "y"])
    assert control_values(widgets.Checkbox()) == ([False, True], [False, True])
    assert control_values(widgets.Text()) == ([], [])


def test_sweep_visits_every_extreme_combination_and_each_range():
    calls = []
    figure = toy_figure(calls)
    calls.clear()
    found = sweep(figure, interior=3)
    seen = {(c["scale"], c["n"], c["kind"], c["grid"]) for c in calls}
    for scale in (0.5, 1.5):
        for n in (1, 1000):
            for kind in ("-", "o", "--"):
                for grid in (False, True):
                    assert (scale, n, kind, grid) in seen  # every corner was drawn
    assert {c["scale"] for c in calls} >= {0.5, 0.75, 1.0, 1.25, 1.5}
    assert sorted({c["n"] for c in calls}) == [1, 10, 251, 501, 750, 1000]  # ends, 3 interior points, start
    # one timed redraw per change (plus the first), each drawn with the values it reports; then the reset
    assert [r.values for r in found.redraws] == calls[: len(found.redraws)]
    assert all(r.seconds > 0 for r in found.redraws) and found.slowest in found.redraws
    assert found.figure == "draw_toy" and found.unswept == ()


def test_sweep_reports_failures_with_the_values_that_caused_them():
    found = sweep(toy_figure([]), interior=3)
    assert found.failures, "scale 1.5 with n 1000 must fail"
    for failure in found.failures:
        assert failure.values["scale"] > 1.4 and failure.values["n"] > 900
        assert failure.error.startswith("OverflowError: ")
    assert all(r.error is None for r in found.redraws if r.values["scale"] <= 1.4 or r.values["n"] <= 900)


def test_sweep_sets_the_controls_back():
    figure = toy_figure([])
    before = figure.values
    sweep(figure, interior=2)
    assert figure.values == before and figure.last_error is None and figure.last_figure is not None


def test_sweep_rejects_what_it_cannot_drive():
    with pytest.raises(TypeError, match="InteractiveFigure; got function"):
        sweep(lambda: None)
    with pytest.raises(ValueError, match="needs .* redraws; max_redraws=5"):
        sweep(toy_figure([]), max_redraws=5)
    with pytest.raises(ValueError, match="interior must be a non-negative integer; got -1"):
        control_values(widgets.IntSlider(), interior=-1)
