"""`keras.datasets`: small standard datasets as numpy arrays.

    (x_train, y_train), (x_test, y_test) = keras.datasets.mnist.load_data()

Each loader downloads its file once into the Keras cache (`~/.keras/datasets`,
or under `$KERASISH_HOME` / `$KERAS_HOME`), from the same URL and with the same
hash as Keras 3, so a cache filled by Keras is reused. `mnist.load_data` and
`imdb.load_data` also read an existing local file passed as `path`.

`KERASISH_DATA_DIR` is a convention for examples, not something the loaders
read: examples point it at the project's shared data folder and pass the file
explicitly, e.g.

    path = os.path.join(os.environ["KERASISH_DATA_DIR"], "mnist_subset.npz")
    (x_train, y_train), (x_test, y_test) = keras.datasets.mnist.load_data(path=path)
"""
from kerasish.datasets import (boston_housing, california_housing, cifar10, cifar100,
                               fashion_mnist, imdb, mnist, reuters)

__all__ = ["boston_housing", "california_housing", "cifar10", "cifar100", "fashion_mnist",
           "imdb", "mnist", "reuters"]
