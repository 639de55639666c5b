"""The dataset classes behind `Dataset`'s sources and transformations."""
