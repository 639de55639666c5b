"""Layers of this family; see kerasish/layers/__init__.py for the public names
(the classes and Keras's lower-case merge functions: `keras.layers.add`, ...)."""
