"""Attention layers: MultiHeadAttention, GroupedQueryAttention, Attention, AdditiveAttention."""
