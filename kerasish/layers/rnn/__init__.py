"""Recurrent layers and cells; see kerasish/layers/__init__.py for the public names."""
