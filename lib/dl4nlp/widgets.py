"""Interactive figures whose logic stays a plain, testable function.

``interactive_figure(draw, controls)`` wires ipywidgets controls to a function
``draw(**values) -> Figure``: every change redraws, and an error is printed in
the output area (and kept in ``.last_error``) instead of vanishing into the
browser console. Displayed, it offers the live widget and, for viewers that
cannot run widgets (GitHub, nbviewer, a notebook opened without its kernel), a
PNG of the figure as it was first drawn, so a notebook needs no second, static
copy of the figure. Only ipywidgets 7.6+ features are used (Colab ships 7.x).

A redraw shows the PNG that ``figure_png`` renders: the picture Jupyter's
inline backend shows for a figure (cropped to the box ``bbox_inches="tight"``
measures, labels that stick out of the figure kept), drawn once, not twice.

``sweep(figure)`` drives an interactive figure through its controls' whole
ranges the way a student would, by setting each control's value, and times
every redraw and collects every failure (``make bench`` runs it on every
figure of every notebook; the budget is 0.5 s a redraw).
"""

from __future__ import annotations

import base64
import inspect
import io
import itertools
import time
import traceback
import weakref
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional

import ipywidgets as widgets
import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import display
from matplotlib.backend_bases import FigureCanvasBase
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.transforms import Bbox

from dl4nlp._checks import check_type

WIDGET_VIEW_MIMETYPE = "application/vnd.jupyter.widget-view+json"
MARGIN_PX = 60  # room around the figure for labels that stick out of it (a clipped x label: ~20 px)
_MARGINS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # a figure that needed more room -> inches


class _Pixels:
    """A file for ``print_figure(format="rgba")`` that keeps the (H, W, 4) pixels it is given, not bytes."""

    pixels: Optional[np.ndarray] = None

    def write(self, data) -> None:
        self.pixels = np.asarray(data)  # Agg's buffer (H, W, 4), uint8; it keeps the buffer alive

    def seek(self, *args) -> None:  # matplotlib checks that a file handle has one
        pass


def figure_png(figure: plt.Figure) -> Optional[bytes]:
    """The PNG that Jupyter's inline backend shows for ``figure``, rendered once instead of twice.

    The inline backend saves with ``bbox_inches="tight"``: matplotlib lays the
    figure out once (drawing nothing) to measure what it draws, then renders
    it a second time inside that box. Here the figure is rendered once, with a
    margin of ``MARGIN_PX`` pixels around it, the box is measured on that
    render, and the pixels inside the box (padded by ``savefig.pad_inches``, as
    "tight" pads it) are the picture: the same size, the same content, give or
    take a pixel's shift. Where the box does not fit in the margin (a label
    far outside the figure) the figure is rendered again inside the box, and
    the next render of that figure gets a margin wide enough. A closed figure
    (whose canvas pyplot reset to a plain one) is given an Agg canvas, which it
    keeps: the next render reuses its renderer and the text it measured.
    Returns None where the inline backend would not render a PNG this way (a
    figure with no axes, or another canvas, such as ipympl's live one):
    ``display(figure)`` shows such a figure.

    >>> fig, ax = plt.subplots(figsize=(3, 2), dpi=100); _ = ax.set_xlabel("below the figure", labelpad=20)
    >>> png = figure_png(fig)
    >>> png[:8], int.from_bytes(png[20:24], "big") > 200  # a PNG taller than the figure: the label is in it
    (b'\\x89PNG\\r\\n\\x1a\\n', True)
    >>> plt.close(fig)
    """
    check_type("figure", figure, Figure, "a matplotlib Figure")
    pad = matplotlib.rcParams["savefig.pad_inches"]
    original = figure.canvas
    if (
        not figure.axes
        or type(original) not in (FigureCanvasAgg, FigureCanvasBase)
        or not isinstance(pad, (int, float))
    ):
        return None
    # A closed figure (pyplot gave it a plain canvas) keeps the Agg canvas it gets here, so that the renderer
    # and its measured text are reused by the next redraw of the figure (the widgets update one figure).
    canvas = original if type(original) is FigureCanvasAgg else FigureCanvasAgg(figure)
    dpi, (width, height) = figure.dpi, figure.get_size_inches()
    margin = _MARGINS.get(figure, MARGIN_PX / dpi)  # inches
    colours = {"dpi": dpi, "facecolor": figure.get_facecolor(), "edgecolor": figure.get_edgecolor()}
    target = _Pixels()
    room = Bbox.from_extents(-margin, -margin, width + margin, height + margin)  # inches
    canvas.print_figure(target, format="rgba", bbox_inches=room, **colours)  # the one draw
    box = figure.get_tightbbox(canvas.renderer).padded(pad)  # measured with the renderer that drew
    rgba = target.pixels  # (H, W, 4): the figure's bottom left corner is `margin` in from the bottom left
    left, top = int((box.x0 + margin) * dpi), int((height + margin - box.y1) * dpi)
    size = int(box.height * dpi), int(box.width * dpi)  # (h, w), as matplotlib sizes a "tight" PNG
    crop = rgba[max(top, 0) : top + size[0], max(left, 0) : left + size[1]]
    png = io.BytesIO()
    if min(left, top) < 0 or crop.shape[:2] != size:  # the box reaches beyond the margin: draw inside it
        beyond = max(-box.x0, -box.y0, box.x1 - width, box.y1 - height)  # inches outside the figure
        _MARGINS[figure] = beyond + MARGIN_PX / dpi
        canvas.print_figure(png, format="png", bbox_inches=box, **colours)
        return png.getvalue()
    crop = np.ascontiguousarray(crop)  # Pillow before 12 reads only contiguous pixels
    matplotlib.image.imsave(png, crop, format="png", origin="upper", dpi=dpi)
    return png.getvalue()


class InteractiveFigure:
    """A row of controls above a figure that ``draw`` re-makes on every change."""

    def __init__(self, draw: Callable[..., plt.Figure], controls: Mapping[str, widgets.ValueWidget]):
        if not callable(draw):
            raise TypeError(f"draw must be a function returning a matplotlib Figure; got {draw!r}")
        if not isinstance(controls, Mapping):
            kind = type(controls).__name__
            raise TypeError(f"controls must be a mapping from draw's parameter names to widgets; got {kind}")
        missing = [f"{name!r}={c!r:.40}" for name, c in controls.items() if not hasattr(c, "value")]
        if missing:
            raise TypeError(f"controls must be ipywidgets value widgets; these are not: {', '.join(missing)}")
        try:
            parameters = inspect.signature(draw).parameters
        except (TypeError, ValueError):  # a builtin without a signature: let draw report it
            parameters = {}
        if parameters and not any(p.kind == p.VAR_KEYWORD for p in parameters.values()):
            unknown = sorted(set(controls) - set(parameters))
            if unknown:
                raise TypeError(f"controls must match draw's parameters {list(parameters)}; draw takes no {unknown}")
        self.draw = draw
        self.controls = dict(controls)
        self.output = widgets.Output()
        self.widget = widgets.VBox([widgets.HBox(list(self.controls.values())), self.output])
        self.last_figure: Optional[plt.Figure] = None
        self.last_png: Optional[bytes] = None  # what the output area shows
        self.last_error: Optional[BaseException] = None
        for control in self.controls.values():
            if hasattr(control, "style") and hasattr(control.style, "description_width"):
                control.style.description_width = "initial"  # show whole labels, not "weight sc..."
            control.observe(self.redraw, names="value")
        self.redraw()

    @property
    def values(self) -> dict:
        """The controls' current values, by name."""
        return {name: control.value for name, control in self.controls.items()}

    def redraw(self, _change: object = None) -> None:
        """Call ``draw`` with the current values and show its figure (or its error)."""
        with self.output:
            self.output.clear_output(wait=True)
            try:
                figure = self.draw(**self.values)
            except Exception as error:  # shown to the student, never swallowed
                self.last_error, self.last_figure, self.last_png = error, None, None
                print(
                    f"Could not draw with {self.values}:\n"
                    + "".join(traceback.format_exception_only(type(error), error))
                )
                return
            self.last_error, self.last_figure = None, figure
            self.last_png = figure_png(figure)  # one render (the inline backend would draw it twice)
            if self.last_png is None:
                display(figure)
            else:
                png = base64.b64encode(self.last_png).decode("ascii")
                display({"image/png": png, "text/plain": repr(figure)}, raw=True)
            plt.close(figure)

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        """The widget view, a PNG of the current figure as the fallback, and a line of text."""
        values = ", ".join(f"{name}={value!r}" for name, value in self.values.items())
        bundle = {
            "text/plain": f"interactive figure {getattr(self.draw, '__name__', 'draw')}({values})",
            WIDGET_VIEW_MIMETYPE: {"version_major": 2, "version_minor": 0, "model_id": self.widget.model_id},
        }
        if self.last_png is not None:  # the picture the output area shows
            bundle["image/png"] = base64.b64encode(self.last_png).decode("ascii")
        elif self.last_figure is not None:
            png = io.BytesIO()
            self.last_figure.savefig(png, format="png", bbox_inches="tight")
            bundle["image/png"] = base64.b64encode(png.getvalue()).decode("ascii")
        return bundle


def interactive_figure(draw: Callable[..., plt.Figure], **controls: widgets.ValueWidget) -> InteractiveFigure:
    """Controls (by keyword, matching ``draw``'s parameters) above a live figure."""
    return InteractiveFigure(draw, controls)


# --- driving a figure through its controls (make bench) -------------------------------------------


@dataclass(frozen=True)
class Option:
    """The option at ``index`` of a dropdown or selection slider (set through ``control.index``)."""

    index: int


def _snap(control: widgets.ValueWidget, x: float) -> Any:
    """``x`` moved onto the control's step grid and range, as the slider itself would hold it."""
    step = getattr(control, "step", None)
    if step:
        x = control.min + round((x - control.min) / step) * step
    x = min(max(x, control.min), control.max)
    return int(round(x)) if isinstance(control.value, int) else round(float(x), 10)  # no 3.4000000000000004


def control_values(control: widgets.ValueWidget, interior: int = 5) -> tuple[list, list]:
    """The values a sweep gives ``control``: ``(every value, the extremes)``.

    A slider: both ends and ``interior`` evenly spaced points between them (on
    its step grid; a log slider in its exponent); a range slider: its widest
    and narrowest ranges and the ranges between neighbouring points; a
    dropdown or selection slider: every ``Option``; a combo box: every option;
    a checkbox: both states. The extremes are the ends (every option, both
    states). A text box has no range to sweep: ``([], [])``.

    >>> control_values(widgets.IntSlider(min=0, max=10, step=2), interior=4)
    ([0, 2, 4, 6, 8, 10], [0, 10])
    >>> control_values(widgets.Dropdown(options=["dot", "general"]))
    ([Option(index=0), Option(index=1)], [Option(index=0), Option(index=1)])
    """
    if not isinstance(control, widgets.ValueWidget):
        raise TypeError(f"control must be an ipywidgets value widget; got {type(control).__name__}")
    if not isinstance(interior, int) or isinstance(interior, bool) or interior < 0:
        raise ValueError(f"interior must be a non-negative integer; got {interior!r}")
    if control.has_trait("index") and control.has_trait("options"):  # Dropdown, SelectionSlider, RadioButtons
        options = [Option(i) for i in range(len(control.options))]
        return options, options
    if control.has_trait("options"):  # Combobox: free text with suggestions
        return list(control.options), list(control.options)
    if isinstance(control.value, bool):
        return [False, True], [False, True]
    if not (control.has_trait("min") and control.has_trait("max")):
        return [], []
    lo, hi = control.min, control.max
    points = list(dict.fromkeys(_snap(control, lo + (hi - lo) * i / (interior + 1)) for i in range(interior + 2)))
    if control.has_trait("base"):  # FloatLogSlider: min and max are exponents
        points = [float(control.base**p) for p in points]
    if isinstance(control.value, tuple):  # a range slider
        ends = [(points[0], points[-1]), (points[0], points[0]), (points[-1], points[-1])]
        return ends + list(zip(points[:-1], points[1:])), ends
    return points, [points[0], points[-1]]


def _set(control: widgets.ValueWidget, target: Any) -> bool:
    """Give ``control`` the value ``target`` as a student would; False if it already had it (no redraw)."""
    if isinstance(target, Option):
        if control.index == target.index:
            return False
        control.index = target.index
    else:
        if control.value == target:
            return False
        control.value = target
    return True


@dataclass(frozen=True)
class Redraw:
    """One redraw during a sweep: the controls' values, its wall time, and the error it raised (or None)."""

    values: dict
    seconds: float
    error: Optional[str]


@dataclass(frozen=True)
class Sweep:
    """What ``sweep`` found: every redraw, and the controls it could not sweep (text boxes)."""

    figure: str
    redraws: tuple
    unswept: tuple

    @property
    def slowest(self) -> Redraw:
        return max(self.redraws, key=lambda r: r.seconds)

    @property
    def failures(self) -> list:
        return [r for r in self.redraws if r.error is not None]


def sweep(figure: InteractiveFigure, interior: int = 5, max_redraws: int = 400) -> Sweep:
    """Drive ``figure`` through its controls and time every redraw.

    The controls visit every combination of their extremes (``control_values``),
    then each control moves through its whole range with the others at their
    start values. Each value is set as a student sets it (``control.value =``),
    so the wiring is exercised too, and every change is one timed redraw; an
    error ``draw`` raises is recorded with the values that caused it
    (``Sweep.failures``). The controls are put back to their start values.
    """
    if not isinstance(figure, InteractiveFigure):
        raise TypeError(f"figure must be a dl4nlp.widgets.InteractiveFigure; got {type(figure).__name__}")
    if not isinstance(max_redraws, int) or isinstance(max_redraws, bool) or max_redraws < 1:
        raise ValueError(f"max_redraws must be a positive integer; got {max_redraws!r}")
    names = list(figure.controls)
    start = {name: figure.controls[name].value for name in names}
    values = {name: control_values(figure.controls[name], interior) for name in names}
    corners = itertools.product(*[values[name][1] or [None] for name in names])
    points = [dict(zip(names, corner)) for corner in corners]
    points += [{**start, name: value} for name in names for value in values[name][0]]
    if len(points) > max_redraws:
        raise ValueError(f"sweeping {figure.draw.__name__} needs {len(points)} redraws; max_redraws={max_redraws}")

    redraws = []

    def record(seconds: float) -> None:
        error = figure.last_error
        message = None if error is None else "".join(traceback.format_exception_only(type(error), error)).strip()
        redraws.append(Redraw(values=figure.values, seconds=seconds, error=message))

    try:
        before = time.perf_counter()
        figure.redraw()
        record(time.perf_counter() - before)
        for point in points:
            for name in names:
                if point[name] is None:
                    continue
                before = time.perf_counter()
                if _set(figure.controls[name], point[name]):  # the observer redraws before this returns
                    record(time.perf_counter() - before)
    finally:
        for name in names:
            figure.controls[name].value = start[name]
    return Sweep(
        figure=getattr(figure.draw, "__name__", "draw"),
        redraws=tuple(redraws),
        unswept=tuple(name for name in names if not values[name][0]),
    )
