"""The protocol's message classes, generated from proto/sinew.proto by protoc at build time.

The generated module (sinew_pb2.py) lives in the build tree, never in the source tree. It is found, in
order, in:

1. the directory named by the environment variable ``SINEW_PYTHON_GEN``;
2. ``build/release/clients/python/gen`` and then ``build/<any flavour>/clients/python/gen`` of the
   repository this package sits in (so a script run from a built checkout needs no setting).
"""

import importlib.util
import os
import sys

_MODULE = "sinew_pb2"
_FILE = "sinew_pb2.py"


def _candidates():
    env = os.environ.get("SINEW_PYTHON_GEN")
    if env:
        yield env
    repo = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
    build = os.path.join(repo, "build")
    yield os.path.join(build, "release", "clients", "python", "gen")
    if os.path.isdir(build):
        for flavour in sorted(os.listdir(build)):
            yield os.path.join(build, flavour, "clients", "python", "gen")


def _load():
    # The generated file registers sinew.proto in protobuf's default descriptor pool, which accepts it
    # once per process: reuse a module that is already loaded.
    if _MODULE in sys.modules:
        return sys.modules[_MODULE]
    tried = []
    for directory in _candidates():
        path = os.path.join(directory, _FILE)
        tried.append(path)
        if os.path.isfile(path):
            spec = importlib.util.spec_from_file_location(_MODULE, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[_MODULE] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                del sys.modules[_MODULE]
                raise
            return module
    raise ImportError(
        "sinew: the generated protocol module sinew_pb2.py was not found (looked in: "
        + ", ".join(tried)
        + "). Build the project (bash scripts/build.sh release) or set SINEW_PYTHON_GEN to the "
        "directory that holds it (protoc --python_out=DIR proto/sinew.proto)."
    )


pb = _load()
