"""`keras.preprocessing.image`: image file and array helpers."""
from kerasish.utils.image_utils import (array_to_img, img_to_array, load_img, save_img,
                                        smart_resize)

__all__ = ["array_to_img", "img_to_array", "load_img", "save_img", "smart_resize"]
