"""`keras.preprocessing`: the names Keras 3 keeps there (aliases of `keras.utils`).

`keras.preprocessing.image` (load_img, img_to_array, array_to_img, save_img,
smart_resize), `keras.preprocessing.sequence` (pad_sequences) and the dataset
builders. Keras 3.15.1 has no `keras.preprocessing.text`.
"""
from kerasish.preprocessing import image, sequence
from kerasish.utils.image_dataset_utils import image_dataset_from_directory
from kerasish.utils.text_dataset_utils import text_dataset_from_directory
from kerasish.utils.timeseries_dataset_utils import timeseries_dataset_from_array

__all__ = ["image", "sequence", "image_dataset_from_directory", "text_dataset_from_directory",
           "timeseries_dataset_from_array"]
