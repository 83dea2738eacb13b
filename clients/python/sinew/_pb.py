"""The protocol's message classes, generated from proto/sinew.proto by protoc.

An installed package carries the generated module (``sinew/sinew_pb2.py``, written by protoc when the
package is built: ``pip install ./clients/python``, see setup.py). It is never committed. A source
checkout used without installing (``clients/python`` on ``sys.path``) has none: it then loads the one a
build of the project generated, from the directory named by the environment variable
``SINEW_PYTHON_GEN`` (``build/release/clients/python/gen`` after ``bash scripts/build.sh release``).
"""

import importlib.util
import os
import sys

_MODULE = "sinew_pb2"
_FILE = "sinew_pb2.py"
_HOW = ("install the client (pip install ./clients/python, README \"The Python client\"), or, to use this "
        "source tree as it is, build the project (bash scripts/build.sh release) and set SINEW_PYTHON_GEN to "
        "build/release/clients/python/gen")


def _from_directory(directory):
    # The generated file registers sinew.proto in protobuf's default descriptor pool, which accepts it once
    # per process: reuse a module that is already loaded.
    if _MODULE in sys.modules:
        return sys.modules[_MODULE]
    path = os.path.join(directory, _FILE)
    if not os.path.isfile(path):
        raise ImportError("sinew: SINEW_PYTHON_GEN=%s holds no %s; %s" % (directory, _FILE, _HOW))
    spec = importlib.util.spec_from_file_location(_MODULE, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[_MODULE] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[_MODULE]
        raise
    return module


def _load():
    try:
        from . import sinew_pb2  # an installed package
        return sinew_pb2
    except ImportError:
        pass
    directory = os.environ.get("SINEW_PYTHON_GEN")
    if directory:
        return _from_directory(directory)
    raise ImportError("sinew: the generated protocol module (sinew_pb2) is not in this package; " + _HOW)


pb = _load()
