"""How an interactive figure's redraw renders its PNG: once, as Jupyter's inline backend would show the figure."""

import base64
import io

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
import pytest
from IPython.core.pylabtools import print_figure
from matplotlib.figure import Figure
from PIL import Image

import dl4nlp.widgets as widgets_module
from dl4nlp.widgets import figure_png, interactive_figure


def draw_bars(height):
    """A figure whose x label sticks out below it (7 x 3 inches, the default margins): "tight" keeps the label."""
    fig, ax = plt.subplots(figsize=(7, 3))
    ax.bar(range(1, 11), np.linspace(0.1, 1.0, 10) * height)
    ax.set(ylim=(0, 1), xlabel="key", ylabel="weight", xticks=range(1, 11), title=f"bars up to {height:.2f}")
    return fig


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("L"), dtype=float)  # (H, W) grey levels


@pytest.fixture
def figure_draws(monkeypatch):
    """Counts calls of Figure.draw (a render, or the layout pass that bbox_inches='tight' makes first)."""
    calls = []
    draw = Figure.draw

    def counted(self, renderer):
        calls.append(self)
        return draw(self, renderer)

    monkeypatch.setattr(Figure, "draw", counted)
    return calls


@pytest.fixture
def shown(monkeypatch):
    """What each redraw passes to IPython's display."""
    calls = []
    monkeypatch.setattr(widgets_module, "display", lambda *objs, **kwargs: calls.append((objs, kwargs)))
    return calls


def test_a_redraw_renders_its_figure_once(figure_draws, shown):
    slider = widgets.FloatSlider(value=0.5, min=0.1, max=1.0)
    panel = interactive_figure(draw_bars, height=slider)
    figure_draws.clear(), shown.clear()
    slider.value = 0.8
    assert len(figure_draws) == 1  # the inline backend's print_figure(bbox_inches="tight") draws twice
    ((bundle,), kwargs) = shown[0]
    assert len(shown) == 1 and kwargs == {"raw": True} and set(bundle) == {"image/png", "text/plain"}
    assert base64.b64decode(bundle["image/png"]) == panel.last_png
    assert bundle["text/plain"] == "<Figure size 700x300 with 1 Axes>"  # as display(figure) writes it
    assert panel._repr_mimebundle_()["image/png"] == bundle["image/png"]  # the fallback is the picture shown


def test_the_png_is_the_picture_the_inline_backend_shows(figure_draws):
    fig = draw_bars(0.7)
    tight = pixels(print_figure(fig, "png", bbox_inches="tight"))
    figure_draws.clear()
    ours = pixels(figure_png(fig))
    assert len(figure_draws) == 1
    assert tight.shape[0] > 300  # the x label sticks out below the 300-pixel figure, and "tight" keeps it
    assert np.abs(np.subtract(ours.shape, tight.shape)).max() <= 1, (ours.shape, tight.shape)  # the same box
    dark_ours, dark_tight = (ours < 128).sum(), (tight < 128).sum()  # the same ink: bars, text, ticks
    assert abs(dark_ours - dark_tight) <= 0.01 * dark_tight, (dark_ours, dark_tight)
    rows = slice(ours.shape[0] - 25, ours.shape[0])  # the bottom 25 rows hold the x label "key", not cut off
    assert (ours[rows] < 128).sum() > 20
    plt.close(fig)


def test_a_closed_figure_redrawn_in_place_renders_once(figure_draws):
    fig = draw_bars(0.5)
    plt.close(fig)  # the notebooks make a widget's figure once and close it; the widget updates it
    figure_draws.clear()
    assert figure_png(fig) is not None and len(figure_draws) == 1
    renderer = fig.canvas.renderer  # the closed figure keeps the Agg canvas it was given, and its renderer
    assert figure_png(fig) is not None and fig.canvas.renderer is renderer and len(figure_draws) == 2


def test_a_label_far_outside_the_figure_is_shown_and_the_next_render_makes_room_for_it(figure_draws):
    fig = draw_bars(0.5)
    fig.text(0.01, -0.3, "a note\nbelow the figure", va="top", size=20)  # wholly below the figure, as "tight" shows
    tight = pixels(print_figure(fig, "png", bbox_inches="tight"))
    figure_draws.clear()
    first = pixels(figure_png(fig))
    assert len(figure_draws) == 2  # the box did not fit in the margin: drawn again inside it
    assert np.abs(np.subtract(first.shape, tight.shape)).max() <= 1 and first.shape[0] > 400, first.shape
    assert (first[-60:] < 128).sum() > 100  # the note's second line, at the bottom
    figure_draws.clear()
    again = pixels(figure_png(fig))
    assert len(figure_draws) == 1 and np.abs(np.subtract(again.shape, tight.shape)).max() <= 1  # room made for it
    assert abs((again < 128).sum() - (tight < 128).sum()) <= 0.01 * (tight < 128).sum()
    plt.close(fig)


def test_a_figure_without_axes_is_left_to_the_inline_backend(shown):
    panel = interactive_figure(lambda n: plt.figure(figsize=(2, 2)), n=widgets.IntSlider(value=1))
    assert panel.last_png is None and shown[-1][0] == (panel.last_figure,)  # display(figure), as before
