"""Preprocessing layers (numeric, lookup, text and image), one public class per module."""
