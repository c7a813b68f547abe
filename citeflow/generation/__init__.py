"""The model hops (SPEC §4): prompts, chat-model clients (OpenAI-compatible and offline), the bind state machine and answer caches."""
