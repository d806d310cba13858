"""Interactive figures whose logic stays a plain, testable function.

``interactive_figure(draw, controls)`` wires ipywidgets controls to a function
``draw(**values) -> Figure``: every change redraws, and an error is printed in
the output area (and kept in ``.last_error``) instead of vanishing into the
browser console. Displayed, it offers the live widget and, for viewers that
cannot run widgets (GitHub, nbviewer, a notebook opened without its kernel), a
PNG of the figure as it was first drawn, so a notebook needs no second, static
copy of the figure. Only ipywidgets 7.6+ features are used (Colab ships 7.x).
"""

from __future__ import annotations

import base64
import inspect
import io
import traceback
from typing import Callable, Mapping, Optional

import ipywidgets as widgets
import matplotlib.pyplot as plt
from IPython.display import display

WIDGET_VIEW_MIMETYPE = "application/vnd.jupyter.widget-view+json"


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
                self.last_error, self.last_figure = error, None
                print(
                    f"Could not draw with {self.values}:\n"
                    + "".join(traceback.format_exception_only(type(error), error))
                )
                return
            self.last_error, self.last_figure = None, figure
            display(figure)
            plt.close(figure)

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        """The widget view, a PNG of the current figure as the fallback, and a line of text."""
        values = ", ".join(f"{name}={value!r}" for name, value in self.values.items())
        bundle = {
            "text/plain": f"interactive figure {getattr(self.draw, '__name__', 'draw')}({values})",
            WIDGET_VIEW_MIMETYPE: {"version_major": 2, "version_minor": 0, "model_id": self.widget.model_id},
        }
        if self.last_figure is not None:
            png = io.BytesIO()
            self.last_figure.savefig(png, format="png", bbox_inches="tight")
            bundle["image/png"] = base64.b64encode(png.getvalue()).decode("ascii")
        return bundle


def interactive_figure(draw: Callable[..., plt.Figure], **controls: widgets.ValueWidget) -> InteractiveFigure:
    """Controls (by keyword, matching ``draw``'s parameters) above a live figure."""
    return InteractiveFigure(draw, controls)
