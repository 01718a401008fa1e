//! aep-ollama.
