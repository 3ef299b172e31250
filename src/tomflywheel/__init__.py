"""tomflywheel: measure and improve the Theory-of-Mind reasoning of LLMs served by vLLM."""

__version__ = "0.1.0"
