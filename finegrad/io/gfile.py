"""TensorFlow's ``tf.io.gfile``: files and directories on the local file system."""
from finegrad._src.data.gfile import (GFile, copy, exists, get_registered_schemes, glob, isdir,
                                      join, listdir, makedirs, mkdir, remove, rename, rmtree,
                                      stat, walk)

__all__ = ["GFile", "copy", "exists", "get_registered_schemes", "glob", "isdir", "join",
           "listdir", "makedirs", "mkdir", "remove", "rename", "rmtree", "stat", "walk"]
