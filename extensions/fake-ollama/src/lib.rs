//! Fake Ollama.
