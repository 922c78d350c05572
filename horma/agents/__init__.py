"""Agents: the one tool-using loop, the manager, the retriever and the primary agent."""
