"""LLM clients: Ollama's native API and OpenAI-compatible servers."""
