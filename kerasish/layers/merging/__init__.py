"""Layers of this family; see kerasish/layers/__init__.py for the public names.

`FUNCTIONAL_FORMS` maps Keras's lower-case merge functions (`keras.layers.add`,
`concatenate`, ...) to their module; `kerasish.layers` exports them.
"""
FUNCTIONAL_FORMS = ("add", "average", "concatenate", "dot", "maximum", "minimum", "multiply",
                    "subtract")
