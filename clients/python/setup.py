"""Builds the package with its protocol module: protoc (Debian: protobuf-compiler) generates
sinew/sinew_pb2.py from the repository's proto/sinew.proto into the build, never into the source tree.

The metadata is in pyproject.toml; this file only adds that step. PROTOC names another protoc, and
SINEW_PROTO_DIR another directory holding sinew.proto.
"""

import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


class BuildWithProtocol(build_py):
    """build_py, then protoc writes sinew_pb2.py next to the package's modules in the build."""

    def run(self):
        super().run()
        proto_dir = os.environ.get("SINEW_PROTO_DIR") or os.path.join(HERE, "..", "..", "proto")
        proto = os.path.join(proto_dir, "sinew.proto")
        if not os.path.isfile(proto):
            raise SystemExit("sinew: %s not found: build the package from a checkout of the Sinew repository "
                             "(pip install ./clients/python), or set SINEW_PROTO_DIR" % proto)
        protoc = os.environ.get("PROTOC") or shutil.which("protoc")
        if protoc is None:
            raise SystemExit("sinew: protoc is needed to build the package (Debian: apt-get install "
                             "protobuf-compiler), or set PROTOC")
        out = os.path.join(self.build_lib, "sinew")
        os.makedirs(out, exist_ok=True)
        subprocess.run([protoc, "-I", os.path.abspath(proto_dir), "--python_out=" + os.path.abspath(out),
                        os.path.abspath(proto)], check=True)


setup(cmdclass={"build_py": BuildWithProtocol})
