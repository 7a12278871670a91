"""Answers to the attention exercises, one module per question (exercises/ and solutions/ share this file)."""
