"""dl4nlp.widgets wiring and dl4nlp.exercises.check, without a browser."""

import ipywidgets as widgets
import matplotlib.pyplot as plt
import pytest
import torch

from dl4nlp.exercises import check
from dl4nlp.widgets import InteractiveFigure, interactive_figure


def draw_line(slope):
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, slope])
    ax.set_title(f"slope {slope}")
    return fig


def test_changing_a_control_redraws_with_the_new_value():
    slider = widgets.FloatSlider(value=1.0, min=-5, max=5)
    panel = interactive_figure(draw_line, slope=slider)
    assert panel.last_figure.axes[0].get_title() == "slope 1.0"
    slider.value = 2.5
    assert panel.last_figure.axes[0].get_title() == "slope 2.5"
    assert panel.values == {"slope": 2.5} and panel.last_error is None
    assert slider in panel.widget.children[0].children


def test_an_error_in_draw_is_kept_and_shown_not_swallowed():
    def fragile(n):
        if n > 3:
            raise ValueError(f"n must be at most 3; got {n}")
        return draw_line(n)

    slider = widgets.IntSlider(value=1, min=0, max=10)
    panel = interactive_figure(fragile, n=slider)
    slider.value = 7
    assert isinstance(panel.last_error, ValueError) and panel.last_figure is None
    slider.value = 2
    assert panel.last_error is None and panel.last_figure is not None


def test_displays_as_the_live_widget_with_a_png_of_the_figure_as_fallback():
    import base64

    slider = widgets.FloatSlider(value=1.0, min=-5, max=5)
    panel = interactive_figure(draw_line, slope=slider)
    bundle = panel._repr_mimebundle_()
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == panel.widget.model_id
    assert base64.b64decode(bundle["image/png"]).startswith(b"\x89PNG")
    assert bundle["text/plain"] == "interactive figure draw_line(slope=1.0)"
    slider.value = 6.0  # beyond max: the slider clamps it, and the fallback follows the current figure
    assert panel._repr_mimebundle_()["image/png"] != bundle["image/png"]


def test_no_png_when_the_figure_could_not_be_drawn():
    def broken(n):
        raise ValueError("no")

    panel = interactive_figure(broken, n=widgets.IntSlider(value=1))
    assert "image/png" not in panel._repr_mimebundle_()
    assert isinstance(panel.last_error, ValueError)


def test_bad_wiring_is_rejected():
    with pytest.raises(TypeError, match="function returning a matplotlib Figure"):
        InteractiveFigure("not a function", {})
    with pytest.raises(TypeError, match="value widget"):
        InteractiveFigure(draw_line, {"slope": 3})


def test_check_verdicts(capsys):
    def unfinished():
        raise NotImplementedError

    assert check("ex", lambda: [1.0, 2.0], [1.0, 2.0 + 1e-9])
    assert not check("ex", unfinished, 1.0)
    assert "not answered yet" in capsys.readouterr().out
    assert not check("ex", [1.0], [1.0, 2.0])
    assert "expected shape (2,), got shape (1,)" in capsys.readouterr().out
    assert not check("ex", 1.5, 1.0)
    assert "your answer is 1.5, expected 1." in capsys.readouterr().out
    assert not check("ex", [[1.0, 2.0], [3.0, 4.0]], [[1.0, 2.0], [3.0, 5.0]])
    assert "element [1, 1] is 4, expected 5" in capsys.readouterr().out  # the first element that differs, named
    assert not check("ex", [0.5, 9.0], [0.5, 2.0], names=["dL/dw", "dL/db"])
    assert "dL/db is 9, expected 2" in capsys.readouterr().out
    assert not check("ex", False, True)
    assert "your answer is False, expected True" in capsys.readouterr().out  # not "largest difference 1"
    assert not check("ex", {"x": 1.0, "y": 2.5}, {"x": 1.0, "y": 2.0})
    assert "y is 2.5, expected 2" in capsys.readouterr().out
    assert not check("ex", 1 + 1j, 1.0)
    assert "complex" in capsys.readouterr().out
    assert not check("ex", [None, None], [True, False])  # unanswered entries are not True
    assert "unanswered" in capsys.readouterr().out
    assert not check("ex", 10**400, 1.0)  # never raises for a student's answer
    assert "too large" in capsys.readouterr().out
    assert not check("ex", lambda: 1 / 0, 1.0)
    assert "ZeroDivisionError" in capsys.readouterr().out
    assert not check("ex", None, 1.0)
    assert not check("ex", "abc", 1.0)
    assert not check("ex", "1.0", 1.0)  # text is not a number, even text that reads as one
    assert "expected numbers, got not numbers: str '1.0'" in capsys.readouterr().out


def test_check_raises_for_the_authors_mistakes_not_the_students():
    with pytest.raises(TypeError, match="expected must be numbers .*; got str 'one'"):
        check("ex", 1.0, "one")  # a reference that is not numbers is the notebook's bug
    with pytest.raises(ValueError, match="atol must be a finite number >= 0.0; got -1.0"):
        check("ex", 1.0, 1.0, atol=-1)


def test_check_never_raises_for_a_complex_bool_or_huge_answer(capsys):
    # issue 22: a complex answer is not "correct" (its imaginary part was silently dropped), 10**400
    # raised OverflowError although check promises never to raise for a student's answer.
    for answer in (1 + 1j, 1 + 0j, [1.0, 1j], 10**400, True, torch.tensor([1.0 + 0j])):
        assert not check("ex", answer, 1.0 if not isinstance(answer, list) else [1.0, 0.0])
        assert "expected numbers, got" in capsys.readouterr().out
    assert check("ex", 10**10, 1e10)  # a large int that a float holds is a number
