"""Layers of this family; see kerasish/layers/__init__.py for the public names."""
