"""dl4nlp: the small, tested library behind the deep-learning-for-NLP notebooks.

One concept per module; the notebooks build each idea step by step and then
import the verified version from here. Start with ``dl4nlp.start()``.
"""

from dl4nlp._version import __version__
from dl4nlp.device import autocast, describe_environment, get_device, seed_everything
from dl4nlp.notebook import start

__all__ = ["autocast", "describe_environment", "get_device", "seed_everything", "start", "__version__"]
