#!/usr/bin/python3
"""The built container image, checked and run (tests/deploy/container.sh builds it, then calls this).

What it checks, on the image podman holds:
- Its configuration: a non-root numeric user, sinewd as the entry point, a health check (the docker
  format keeps it), SIGTERM as the stop signal, the models volume, no variable pointing at a CA bundle.
- Its contents, in every layer (a file a later layer deletes is still shipped): no compiler, linker or
  assembler, no headers, static libraries or -dev packages; no source tree (no file with the content of
  a file of this repository but those the image is meant to ship, no C sources, no .git); no CA bundle
  the build added (no file equal to the bundle given as the build's secret, no certificate of that bundle
  that Debian's ca-certificates does not have). Every ELF file finds its libraries with the image's own
  loader, every script its interpreter, every command the deployment files exec in the container (health
  checks, probes, hooks) its program.
- Its size and what its largest layers hold (printed).
- Running it: `podman run` where the machine allows it (as it is, then with runc and ulimits the runtime
  may set: on CI's machines crun refuses the hybrid cgroup v1/v2 mounts, and neither runtime may raise
  RLIMIT_NOFILE and RLIMIT_NPROC to podman's defaults without CAP_SYS_RESOURCE), otherwise a chroot of
  the image mounted with `podman image mount`, in fresh mount, network, PID, IPC and UTS namespaces, as
  the image's user with the image's environment, working directory and entry point (sinewd is PID 1 in
  both). The output says which ran. Both run on a read-only root (the Kubernetes manifest's
  readOnlyRootFilesystem) with a host directory as the models volume, in a network namespace of their
  own with only loopback: every request goes to 127.0.0.1 inside it (nsenter), nothing crosses a network.
- In it: sinewd runs as the image's user with no capabilities, with the image's environment (plus
  SINEW_DEMO_MODEL, a URDF of the models volume) and entry point, and listens on every interface of its
  namespace; /healthz, /metrics and the dashboard answer; the image's HEALTHCHECK command says 0; a
  Python client session (clients/python) sees the demo world's robot read from the volume, creates a
  world, loads the URDF of the volume and steps it, and its joint positions match those of the same
  session against the host's build of sinewd; SIGTERM (the image's stop signal) ends the server with
  status 0 within the image's SINEW_SHUTDOWN_GRACE_MS, and the connected client is told it is closing.

Every wait is bounded, and the whole run stops itself after TIME_LIMIT_S (the client side after
SESSION_LIMIT_S), removing the container it started.

usage: check_image.py IMAGE --python-gen DIR [--sinewd HOST_SINEWD] [--ca-bundle FILE] [--run auto|podman|chroot]
       check_image.py --python-gen DIR --session TCP WS URDF APP_JS_BYTES   (the client side, run by the above
                                                                         in the server's network namespace)
"""

import argparse
import base64
import collections
import gzip
import hashlib
import io
import json
import math
import os
import re
import resource
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tarfile
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HERE = os.path.abspath(__file__)
TIME_LIMIT_S = 600  # the checks take seconds; an image of hundreds of MB, a minute
SESSION_LIMIT_S = 300
failures = []
checks = 0


def check(ok, what):
    global checks
    checks += 1
    if not ok:
        failures.append(what)
    print("%s  %s" % ("ok   " if ok else "FAIL ", what), flush=True)
    return ok


def say(text):
    print(text, flush=True)


def run(argv, timeout=120, check_rc=True, **kwargs):
    """Run a command; its CompletedProcess (text). A non-zero exit raises unless check_rc is False."""
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, **kwargs)
    if check_rc and proc.returncode != 0:
        raise RuntimeError("%s: exit %d\n%s%s" % (" ".join(argv), proc.returncode, proc.stdout, proc.stderr))
    return proc


def megabytes(n):
    return "%.1f MB" % (n / 1e6) if n >= 1e5 else "%.1f kB" % (n / 1e3)


# ---- the image's configuration ------------------------------------------------------------------------

def check_config(info):
    cfg = info["Config"]
    user = cfg.get("User", "")
    uid, _, gid = user.partition(":")
    check(uid.isdigit() and int(uid) != 0 and (not gid or gid.isdigit()),
          "the image's user is numeric and not root: %r (Kubernetes' runAsNonRoot needs a number)" % user)
    entry = cfg.get("Entrypoint") or []
    check(entry[:1] == ["/usr/local/bin/sinewd"], "the entry point is sinewd: %s" % entry)
    health = info.get("Healthcheck") or {}
    check(health.get("Test", [None])[0] in ("CMD", "CMD-SHELL"),
          "the image has a HEALTHCHECK (built with --format docker): %s" % health.get("Test"))
    check(cfg.get("StopSignal") in ("SIGTERM", "15", "TERM"), "the stop signal is SIGTERM: %s" % cfg.get("StopSignal"))
    check("/var/lib/sinew/models" in (cfg.get("Volumes") or {}), "/var/lib/sinew/models is a volume")
    env = dict(e.split("=", 1) for e in cfg.get("Env", []))
    ca_vars = sorted(k for k in env if re.search(r"CA_|CERT|SSL|APT_CONFIG", k))
    check(not ca_vars, "no variable of the image points at a CA bundle (%s)" % (ca_vars or "none"))
    return env


# ---- the image's layers --------------------------------------------------------------------------------

class Layer:
    def __init__(self, index, created_by):
        self.index = index
        self.created_by = created_by
        self.size = 0
        self.gzip_size = 0
        self.files = {}  # path -> (mode, size, sha256, is_symlink, link target)

    def top(self, count=6, depth=4):
        """The largest directories (to `depth` levels) and files of this layer, [(bytes, path)]."""
        sums = collections.Counter()
        for path, (mode, size, _, link, _) in self.files.items():
            if link or not size:
                continue
            parts = path.split("/")
            sums["/" + "/".join(parts[:depth]) + ("/" if len(parts) > depth else "")] += size
        return [(n, p) for p, n in sums.most_common(count)]


def read_layers(image, work):
    """Every layer of the image as saved by podman (docker archive), with its files and what made it."""
    archive = os.path.join(work, "image.tar")
    run(["podman", "save", "--format", "docker-archive", "-o", archive, image], timeout=300)
    layers = []
    with tarfile.open(archive) as outer:
        manifest = json.load(outer.extractfile("manifest.json"))[0]
        config = json.load(outer.extractfile(manifest["Config"]))
        makers = [h.get("created_by", "") for h in config.get("history", []) if not h.get("empty_layer")]
        for i, name in enumerate(manifest["Layers"]):
            layer = Layer(i, makers[i] if i < len(makers) else "?")
            raw = outer.extractfile(name).read()
            layer.gzip_size = len(gzip.compress(raw, 6))
            with tarfile.open(fileobj=io.BytesIO(raw)) as inner:
                for m in inner:
                    path = re.sub(r"^(\./|/)+", "", m.name)
                    if m.isfile():
                        data = inner.extractfile(m).read()
                        layer.files[path] = (m.mode, m.size, hashlib.sha256(data).hexdigest(), False, None)
                        layer.size += m.size
                        layer_data(layer, path, data)
                    elif m.issym() or m.islnk():
                        layer.files[path] = (m.mode, 0, None, True, m.linkname)
            layers.append(layer)
    os.unlink(archive)
    return layers


# Contents kept while reading, for the checks below: certificates, shebangs, ELF files and dpkg's status.
contents = {"certs": collections.defaultdict(set), "shebang": {}, "elf": [], "status": "", "bundle_equal": []}
BUNDLE = {"sha256": None}


def layer_data(layer, path, data):
    if BUNDLE["sha256"] and hashlib.sha256(data).hexdigest() == BUNDLE["sha256"]:
        contents["bundle_equal"].append(path)
    if b"-----BEGIN CERTIFICATE-----" in data:
        for cert in pem_certificates(data):
            contents["certs"][cert].add(path)
    if data.startswith(b"#!"):
        contents["shebang"][path] = data[2:200].split(b"\n")[0].decode("utf-8", "replace").strip()
    if data.startswith(b"\x7fELF"):
        contents["elf"].append(path)
    if path == "var/lib/dpkg/status":
        contents["status"] = data.decode("utf-8", "replace")


def pem_certificates(data):
    """The DER bytes of every PEM certificate in data."""
    out = set()
    for body in re.findall(rb"-----BEGIN CERTIFICATE-----(.*?)-----END CERTIFICATE-----", data, re.S):
        try:
            out.add(base64.b64decode(b"".join(body.split())))
        except ValueError:
            pass
    return out


def final_stage_steps():
    """The instructions of deploy/Dockerfile's last stage that make a layer (COPY, ADD, RUN), in order:
    podman's history names a COPY only by a hash of what it copied."""
    steps = []
    with open(os.path.join(ROOT, "deploy", "Dockerfile")) as f:
        for line in f:
            word = line.split(" ", 1)[0].upper()
            if word == "FROM":
                steps = []
            elif word in ("COPY", "ADD", "RUN"):
                steps.append(line.strip().rstrip("\\").strip())
    return steps


def print_layers(info, layers):
    steps = final_stage_steps()
    if len(steps) == len(layers):
        for layer, step in zip(layers, steps):
            layer.created_by = step
    total = info["Size"]
    say("image: %s uncompressed (podman images shows this), %s as gzip layers (what a registry transfers), %d layers"
        % (megabytes(total), megabytes(sum(l.gzip_size for l in layers)), len(layers)))
    for layer in sorted(layers, key=lambda l: -l.size)[:4]:
        maker = re.sub(r"^/bin/sh -c (#\(nop\) )?", "", layer.created_by)[:90]
        say("  layer %d: %s, %d files, made by: %s" % (layer.index, megabytes(layer.size), len(layer.files), maker))
        for n, path in layer.top():
            say("      %9s  %s" % (megabytes(n), path))


COMPILER = re.compile(
    r"^(?:[\w.]+-linux-gnu\w*-)?"
    r"(?:cc|c\+\+|c89|c99|gcc|g\+\+|cpp|clang|clang\+\+|clang-cl|tcc|pcc|icc|gfortran|rustc|go|javac|"
    r"as|ld|ld\.bfd|ld\.gold|ld\.lld|lld|mold|gold|nasm|yasm|cc1|cc1plus|cc1obj|collect2|lto1|lto-wrapper|"
    r"make|cmake|ninja|meson|protoc|node|npm)"
    r"(?:-\d+(?:\.\d+)*)?$")


def check_contents(layers, repo_files, ca_extra):
    every = {}
    for layer in layers:
        every.update(layer.files)
    # No compiler: by what files are (robust to any package added later), then by package names.
    tools = sorted(p for p, (mode, _, _, link, _) in every.items()
                   if COMPILER.match(os.path.basename(p)) and (link or mode & 0o111))
    check(not tools, "no compiler, assembler, linker or build tool in any layer (%s)" % (tools[:8] or "none"))
    dev = sorted(p for p in every if re.search(r"\.(h|hh|hpp|a|o|la)$", p) or p.startswith("usr/include/")
                 or re.match(r"usr/(lib|libexec)/(gcc|gcc-cross|llvm-\d+)/", p))
    check(not dev, "no headers, static libraries, objects or compiler directories (%s)" % (dev[:8] or "none"))
    packages = re.findall(r"^Package: (\S+)", contents["status"], re.M)
    check(len(packages) > 0, "the image's dpkg status names its %d packages" % len(packages))
    # gcc-12-base holds only gcc's copyright and changelog: libgcc-s1 and libstdc++6 depend on it.
    devel = sorted(p for p in packages if p.endswith("-dev") or (
        re.match(r"(gcc|g\+\+|cpp|clang|llvm|binutils|tcc|make|cmake|ninja-build)(\b|-)", p) and not p.endswith("-base")))
    check(not devel, "no -dev, compiler or build-tool package (%s)" % (devel or "none"))
    # No source tree.
    sources = sorted(p for p in every if re.search(r"(^|/)(CMakeLists\.txt|\.git|[^/]+\.(c|cc|cpp|proto|cmake))$", p)
                     or p.startswith(("src/", "usr/src/")))
    check(not sources, "no C sources, CMake files, protocol sources or .git (%s)" % (sources[:8] or "none"))
    # What the image ships from the repository on purpose: the health check, the models and the dashboard's
    # static files. Anywhere else a file with the content of one of the repository's is a copied source.
    by_hash = collections.defaultdict(list)
    for path, digest in repo_files.items():
        by_hash[digest].append(path)
    copied = sorted("%s (= %s)" % (p, by_hash[h][0]) for p, (_, size, h, link, _) in every.items()
                    if not link and size >= 64 and h in by_hash
                    and not p.startswith(("usr/local/share/sinew/", "usr/local/bin/sinew-healthcheck")))
    check(not copied, "no file of the repository in the image outside /usr/local/share/sinew and the health "
          "check (%s; %d files compared)" % (copied[:5] or "none", len(repo_files)))
    # No CA bundle from the build.
    check(not contents["bundle_equal"], "no file equal to the CA bundle given to the build (%s)" % (contents["bundle_equal"] or "none"))
    leaked = sorted({p for cert in ca_extra for p in contents["certs"].get(cert, ())})
    check(not leaked, "none of the bundle's %d certificates that Debian's ca-certificates lacks is in the image (%s)"
          % (len(ca_extra), leaked or "none"))
    say("       (the image holds %d PEM certificates in all)" % len(contents["certs"]))
    return every


def resolve(root, path, hops=0):
    """path inside the image root, symlinks resolved within it; None if it does not exist."""
    parts = path.strip("/").split("/")
    current = ""
    for i, part in enumerate(parts):
        candidate = current + "/" + part
        if os.path.islink(root + candidate):
            if hops > 40:
                return None
            target = os.readlink(root + candidate)
            base = target if target.startswith("/") else os.path.normpath(current + "/" + target)
            rest = "/".join(parts[i + 1:])
            return resolve(root, base + ("/" + rest if rest else ""), hops + 1)
        current = candidate
    return root + current if os.path.exists(root + current) else None


def elf_interpreter(path):
    """PT_INTERP of a 64-bit little-endian ELF file, or None."""
    with open(path, "rb") as f:
        head = f.read(64)
        if head[:4] != b"\x7fELF" or head[4] != 2:
            return None
        phoff, = struct.unpack_from("<Q", head, 32)
        phentsize, phnum = struct.unpack_from("<HH", head, 54)
        for i in range(phnum):
            f.seek(phoff + i * phentsize)
            ptype, _, offset, _, _, filesz = struct.unpack("<IIQQQQ", f.read(40))
            if ptype == 3:
                f.seek(offset)
                return f.read(filesz).rstrip(b"\0").decode()
    return None


def check_runnable(mount):
    """Every ELF file finds its libraries with the image's loader; every script its interpreter."""
    sinewd = resolve(mount, "/usr/local/bin/sinewd")
    interp = elf_interpreter(sinewd) if sinewd else None
    check(interp is not None and resolve(mount, interp) is not None, "sinewd's loader %s is in the image" % interp)
    missing = []
    for path in sorted(set(contents["elf"])):
        full = resolve(mount, "/" + path)
        if not full:
            continue
        out = run(["chroot", mount, interp, "--list", "/" + path], check_rc=False, timeout=30)
        if "not found" in out.stdout + out.stderr:
            missing.append("%s: %s" % (path, " ".join(l.split()[0] for l in out.stdout.splitlines() if "not found" in l)))
    check(not missing, "every one of the %d ELF files finds its shared libraries in the image (%s)"
          % (len(set(contents["elf"])), missing[:5] or "ld.so --list in a chroot"))
    bad = []
    for path, line in contents["shebang"].items():
        interp_path = line.split()[0] if line else ""
        if not resolve(mount, interp_path):
            bad.append("%s: %s" % (path, interp_path))
    check(not bad, "every script's interpreter is in the image (%d scripts; missing: %s)"
          % (len(contents["shebang"]), bad or "none"))


def deployment_commands(info):
    """(where, argv) of every command the deployment files run in the container: the image's HEALTHCHECK,
    compose's healthcheck, the Kubernetes probes and lifecycle hooks that exec."""
    import yaml  # Debian's python3-yaml

    out = []

    def add(where, test):
        if isinstance(test, list) and test and test[0] in ("CMD", "CMD-SHELL"):
            out.append((where, test[1:] if test[0] == "CMD" else ["/bin/sh", "-c"] + test[1:]))

    add("the image's HEALTHCHECK", (info.get("Healthcheck") or {}).get("Test"))
    with open(os.path.join(ROOT, "deploy", "compose.yaml")) as f:
        compose = yaml.safe_load(f)
    for name, svc in (compose.get("services") or {}).items():
        add("compose's %s healthcheck" % name, (svc.get("healthcheck") or {}).get("test"))
    directory = os.path.join(ROOT, "deploy", "kubernetes")
    for file_name in sorted(os.listdir(directory)):
        with open(os.path.join(directory, file_name)) as f:
            docs = [d for d in yaml.safe_load_all(f) if d]
        for doc in docs:
            pod = ((doc.get("spec") or {}).get("template") or {}).get("spec") or {}
            for c in pod.get("containers", []) + pod.get("initContainers", []):
                hooks = [(k, c.get(k)) for k in ("readinessProbe", "livenessProbe", "startupProbe")]
                hooks += [(k, (c.get("lifecycle") or {}).get(k)) for k in ("preStop", "postStart")]
                for k, hook in hooks:
                    if hook and "exec" in hook:
                        out.append(("%s %s" % (file_name, k), hook["exec"]["command"]))
    return out


def check_deployment_commands(mount, info, env):
    """Every program the deployment files exec in the container is in the image (no sleep, curl, ...)."""
    commands = deployment_commands(info)
    missing = []
    for where, argv in commands:
        program = argv[0]
        paths = [program] if program.startswith("/") else [
            d + "/" + program for d in env.get("PATH", "/usr/bin").split(":")]
        if not any(resolve(mount, p) for p in paths):
            missing.append("%s: %s" % (where, program))
    check(commands and not missing, "every program the deployment files run in the container is in the image "
          "(%d commands; missing: %s)" % (len(commands), missing or "none"))


# ---- running it ----------------------------------------------------------------------------------------

def container_env(env, extra):
    out = dict(env)
    out.update(extra)
    return out


class PodmanRun:
    """The image in a real container: `podman run` with its own network namespace (loopback only)."""

    name = "podman run"

    def __init__(self, image, flags):
        self.image = image
        self.flags = flags
        self.cname = "sinew-test-%d" % os.getpid()
        self.pid = None

    @staticmethod
    def probe(image):
        """The podman run flags that work on this machine, or None."""
        nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        candidates = [
            [],
            # crun refuses hybrid cgroup mounts; both runtimes fail to raise RLIMIT_NPROC and RLIMIT_NOFILE
            # to podman's defaults without CAP_SYS_RESOURCE. The image's user runs only sinewd's few
            # threads: 4096 processes is far more than it needs; nofile stays at what this process has.
            ["--runtime", "runc", "--ulimit", "nofile=%d:%d" % (nofile, nofile), "--ulimit", "nproc=4096:4096"],
        ]
        for flags in candidates:
            if flags and not shutil.which(flags[1]):
                continue
            out = run(["podman", "run", "--rm", "--network", "none"] + flags + [image, "--help"],
                      check_rc=False, timeout=60)
            if out.returncode == 0 and "usage: sinewd" in out.stdout:
                return flags
            say("       (podman run %s: %s)" % (" ".join(flags) or "as it is",
                                               (out.stderr.strip().splitlines() or ["exit %d" % out.returncode])[-1][:150]))
        return None

    def start(self, volume, extra_env):
        argv = ["podman", "run", "-d", "--name", self.cname, "--network", "none", "--read-only",
                "--read-only-tmpfs=false", "--health-interval=disable",
                "-v", "%s:/var/lib/sinew/models:ro" % volume]
        for k, v in extra_env.items():
            argv += ["-e", "%s=%s" % (k, v)]
        run(argv + self.flags + [self.image], timeout=60)
        self.pid = int(run(["podman", "inspect", "-f", "{{.State.Pid}}", self.cname]).stdout.strip())
        say("       (container %s, sinewd is host PID %d)" % (self.cname, self.pid))

    def alive(self):
        out = run(["podman", "inspect", "-f", "{{.State.Running}}", self.cname], check_rc=False)
        return out.stdout.strip() == "true"

    def logs(self):
        out = run(["podman", "logs", self.cname], check_rc=False)
        return out.stdout + out.stderr

    def healthcheck(self, cfg_test):
        out = run(["podman", "healthcheck", "run", self.cname], check_rc=False, timeout=30)
        return out.returncode, (out.stdout + out.stderr).strip()

    def stop(self, timeout_s):
        """`podman stop` (the image's stop signal, then SIGKILL after timeout_s): (exit code, seconds)."""
        start = time.monotonic()
        run(["podman", "stop", "-t", str(int(timeout_s)), self.cname], check_rc=False, timeout=timeout_s + 30)
        elapsed = time.monotonic() - start
        code = run(["podman", "inspect", "-f", "{{.State.ExitCode}}", self.cname]).stdout.strip()
        return int(code), elapsed

    def cleanup(self):
        run(["podman", "rm", "-f", "-t", "0", self.cname], check_rc=False)


# Runs as root in new mount, network, PID, IPC and UTS namespaces (unshare), then becomes the server.
CHROOT_SETUP = r"""
set -euo pipefail
root="$1" models="$2" volume="$3" owner="$4" scratch="$5"
shift 5
ip link set lo up
mount --bind "$models" "$root$volume"
mount -o remount,bind,ro "$root$volume"
# The image's other volumes (the state directory) start empty and writable by its user, as the anonymous
# volumes of a podman run do.
for dir in $scratch; do
  mount -t tmpfs -o "nosuid,nodev,mode=0700,size=64m,uid=${owner%:*},gid=${owner#*:}" tmpfs "$root$dir"
done
mount -t proc -o nosuid,nodev,noexec proc "$root/proc"
mount -t tmpfs -o nosuid,mode=0755,size=64k tmpfs "$root/dev"
for n in null zero full random urandom tty; do
  : > "$root/dev/$n"
  mount --bind "/dev/$n" "$root/dev/$n"
done
exec "$@"
"""

# What chroot --userspec does, and the working directory: the last step before the image's entry point.
CHROOT_EXEC = r"""
import json, os, sys
spec = json.loads(sys.argv[1])
os.chroot(spec["root"])
os.setgroups([])
os.setgid(spec["gid"])
os.setuid(spec["uid"])
os.chdir(spec["cwd"])
os.execve(spec["argv"][0], spec["argv"], spec["env"])
"""


class ChrootRun:
    """The image's root file system (podman image mount), chrooted in fresh namespaces as its user."""

    name = "chroot fallback (podman image mount, then chroot as the image's user)"

    def __init__(self, image, info, mount):
        self.image = image
        self.info = info
        self.mount = mount
        self.proc = None
        self.pid = None
        self.log = tempfile.NamedTemporaryFile(prefix="sinew-image-", suffix=".log", delete=False)

    def start(self, volume, extra_env):
        cfg = self.info["Config"]
        uid, _, gid = cfg["User"].partition(":")
        env = container_env(dict(e.split("=", 1) for e in cfg.get("Env", [])), extra_env)
        spec = {"root": self.mount, "uid": int(uid), "gid": int(gid or uid), "cwd": cfg.get("WorkingDir") or "/",
                "argv": (cfg.get("Entrypoint") or []) + (cfg.get("Cmd") or []), "env": env}
        scratch = " ".join(v for v in sorted(cfg.get("Volumes") or {}) if v != "/var/lib/sinew/models")
        argv = ["unshare", "--mount", "--net", "--pid", "--ipc", "--uts", "--fork", "--kill-child", "--",
                "/bin/bash", "-c", CHROOT_SETUP, "bash", self.mount, volume, "/var/lib/sinew/models",
                "%d:%d" % (int(uid), int(gid or uid)), scratch,
                "/usr/bin/python3", "-c", CHROOT_EXEC, json.dumps(spec)]
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT, env={"PATH": os.environ["PATH"]})
        deadline = time.monotonic() + 10
        while self.pid is None and time.monotonic() < deadline and self.proc.poll() is None:
            try:
                with open("/proc/%d/task/%d/children" % (self.proc.pid, self.proc.pid)) as f:
                    kids = f.read().split()
                self.pid = int(kids[0]) if kids else None
            except OSError:
                pass
            time.sleep(0.01)
        if self.pid is None:
            raise RuntimeError("the chroot fallback did not start:\n%s" % self.logs())
        # Wait until the child has become sinewd (after the setup script and the exec chain).
        while time.monotonic() < deadline and self.proc.poll() is None:
            try:
                if os.readlink("/proc/%d/exe" % self.pid).endswith("/usr/local/bin/sinewd"):
                    break
            except OSError:
                pass
            time.sleep(0.01)
        say("       (unshare PID %d; sinewd is host PID %d, PID 1 of its namespace)" % (self.proc.pid, self.pid))

    def alive(self):
        return self.proc.poll() is None

    def logs(self):
        with open(self.log.name, errors="replace") as f:
            return f.read()

    def healthcheck(self, cfg_test):
        """The image's HEALTHCHECK command, as its user, in the server's network namespace and root."""
        cfg = self.info["Config"]
        uid, _, gid = cfg["User"].partition(":")
        cmd = cfg_test[1:] if cfg_test[0] == "CMD" else ["/bin/sh", "-c", cfg_test[1]]
        spec = {"root": self.mount, "uid": int(uid), "gid": int(gid or uid), "cwd": cfg.get("WorkingDir") or "/",
                "argv": cmd, "env": dict(e.split("=", 1) for e in cfg.get("Env", []))}
        out = run(["nsenter", "--net=/proc/%d/ns/net" % self.pid, "/usr/bin/python3", "-c", CHROOT_EXEC,
                   json.dumps(spec)], check_rc=False, timeout=30)
        return out.returncode, (out.stdout + out.stderr).strip()

    def stop(self, timeout_s):
        """SIGTERM to sinewd (the image's stop signal), SIGKILL after timeout_s: (exit code, seconds)."""
        start = time.monotonic()
        os.kill(self.pid, signal.SIGTERM)
        try:
            code = self.proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            os.kill(self.pid, signal.SIGKILL)
            code = 128 + signal.SIGKILL
            self.proc.wait(10)
        return (code if code >= 0 else 128 - code), time.monotonic() - start

    def cleanup(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self.log.close()
        os.unlink(self.log.name)


# ---- the client side: run inside the server's network namespace ----------------------------------------

def http_get(port, path, timeout=5.0):
    """(status, headers, body) of a plain HTTP/1.0 GET on 127.0.0.1."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(("GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n" % path).encode())
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
            if len(data) > 16 << 20:
                break
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1]) if lines and len(lines[0].split()) > 1 else 0
    headers = dict((k.strip().lower(), v.strip()) for k, _, v in (l.partition(":") for l in lines[1:]))
    return status, headers, body


def listeners():
    """{port: [addresses]} of the TCP sockets listening in this network namespace."""
    out = collections.defaultdict(list)
    for name, family in (("/proc/net/tcp", "4"), ("/proc/net/tcp6", "6")):
        try:
            with open(name) as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            address, port = fields[1].split(":")
            if fields[3] == "0A":  # LISTEN
                zero = set(address) == {"0"}
                out[int(port, 16)].append(("any" if zero else "specific") + family)
    return out


def client_session(tcp_port, urdf, world_name):
    """The Python client's part: create a world, load the URDF, step it. Returns (client, joint positions)."""
    sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
    import sinew  # noqa: E402

    client = sinew.connect("127.0.0.1", tcp_port, name="container-test", timeout=20.0)
    world = client.create_world(world_name, dt=0.002, solver="tgs")
    robot = world.load_urdf_file(urdf, initial={"shoulder": 1.0} if "double_pendulum" in urdf else None)
    start = world.state().time
    result = world.step(250)
    q = robot.joint_positions()
    return client, world, robot, start, result, q


def session(tcp_port, ws_port, urdf, web_index_bytes):
    """Client-side checks against a server on 127.0.0.1 (run with nsenter in the server's namespace)."""
    deadline = time.monotonic() + 20
    status = None
    while time.monotonic() < deadline:
        try:
            status, _, body = http_get(ws_port, "/healthz")
            if status == 200:
                break
        except OSError:
            pass
        time.sleep(0.05)
    check(status == 200 and body.strip() == b"ok", "/healthz answers 200 ok (%s)" % status)
    status, headers, body = http_get(ws_port, "/metrics")
    check(status == 200 and b"sinew_uptime_seconds" in body and b"sinew_worlds " in body,
          "/metrics answers 200 with sinew_* metrics (%s, %d bytes)" % (status, len(body)))
    status, headers, body = http_get(ws_port, "/")
    check(status == 200 and "html" in headers.get("content-type", "") and b"app.js" in body,
          "the dashboard (/) answers 200 text/html naming app.js (%s, %s)" % (status, headers.get("content-type")))
    status, headers, body = http_get(ws_port, "/app.js")
    check(status == 200 and len(body) == web_index_bytes,
          "the dashboard's app.js answers 200 with the bundle's %d bytes (%s, %d)" % (web_index_bytes, status, len(body)))
    ports = listeners()
    check(all(any(a.startswith("any") for a in ports.get(p, [])) for p in (tcp_port, ws_port)),
          "sinewd listens on every interface of its namespace on %d and %d (SINEW_HOST=0.0.0.0): %s"
          % (tcp_port, ws_port, {p: ports.get(p) for p in (tcp_port, ws_port)}))

    client, world, robot, start, result, q = client_session(tcp_port, urdf, "container-test")
    robot_name = open(urdf).read().split('<robot name="', 1)[1].split('"', 1)[0]
    demo_robot = client.open_world("demo", role="observer").robot().robot
    check(demo_robot == robot_name, "the demo world's robot is %s, read by the server from the models volume "
          "(SINEW_DEMO_MODEL): %s" % (robot_name, demo_robot))
    check(robot.robot == robot_name and robot.dof_count > 0,
          "the client created a world and loaded %s from the models volume (%d dofs, joints %s)"
          % (os.path.basename(urdf), robot.dof_count, ", ".join(robot.joints)))
    # dt 0.002 s: 250 steps are 0.5 s of simulated time, exactly (the step count times dt).
    check(result.step_count == 250 and abs(result.time - start - 0.5) < 1e-9,
          "250 steps of 2 ms: simulated time %.6f s -> %.6f s" % (start, result.time))
    moving = all(math.isfinite(v) for v in q.values()) and max(abs(v) for v in q.values()) > 1e-3
    check(moving, "the robot moved under gravity and stayed finite: %s" % {k: round(v, 6) for k, v in q.items()})
    say("session: q=%s" % json.dumps(q, sort_keys=True))
    say("session: ready")
    # Wait for the test to stop the server, then look for the server's Closing notice.
    sys.stdin.readline()
    event = client.wait_event("closing", timeout=10)
    closed = client.closed
    check(event is not None or closed is not None,
          "the connected client was told the server is closing (%s)" % (
              "Closing event" if event is not None else closed))
    client.close()
    print("session: %d checks, %d failed" % (checks, len(failures)), flush=True)
    return 1 if failures else 0


def reference_positions(sinewd, urdf, python_gen):
    """The same client session against the host's build of sinewd, on loopback ports chosen free."""
    with tempfile.TemporaryDirectory(prefix="sinew-ref-") as tmp:
        port_file = os.path.join(tmp, "ports")
        log = open(os.path.join(tmp, "log"), "w")
        proc = subprocess.Popen([sinewd, "--host", "127.0.0.1", "--tcp-port", "0", "--ws-port", "-1", "--no-demo",
                                 "--port-file", port_file], stdout=log, stderr=log)
        try:
            deadline = time.monotonic() + 15
            tcp = None
            while tcp is None and time.monotonic() < deadline and proc.poll() is None:
                try:
                    ports = dict(l.strip().split("=") for l in open(port_file) if "=" in l)
                    tcp = int(ports["tcp"])
                except (OSError, KeyError, ValueError):
                    time.sleep(0.02)
            if tcp is None:
                return None
            client, _, _, _, _, q = client_session(tcp, urdf, "reference")
            client.close()
            return q
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            log.close()


# ---- main ----------------------------------------------------------------------------------------------

def repo_hashes():
    """sha256 of every file of the repository (not build outputs or installed packages)."""
    out = {}
    skip = {".git", "build", "node_modules", "__pycache__", "artifacts", "dist"}
    for base, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in skip and not d.startswith("build-")]
        for name in files:
            path = os.path.join(base, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            with open(path, "rb") as f:
                out[os.path.relpath(path, ROOT)] = hashlib.sha256(f.read()).hexdigest()
    return out


def ca_extra_certificates(bundle):
    """The certificates of bundle that Debian's ca-certificates does not ship (a proxy's, say)."""
    with open(bundle, "rb") as f:
        data = f.read()
    BUNDLE["sha256"] = hashlib.sha256(data).hexdigest()
    certs = pem_certificates(data)
    debian = set()
    mozilla = "/usr/share/ca-certificates/mozilla"
    if os.path.isdir(mozilla):
        for name in os.listdir(mozilla):
            with open(os.path.join(mozilla, name), "rb") as f:
                debian |= pem_certificates(f.read())
    return certs - debian, len(certs)


def time_limit(seconds):
    """Raise TimeoutError in the main thread after `seconds` (the finally blocks then clean up)."""
    def expired(signum, frame):
        raise TimeoutError("check_image.py: still running after %d s" % seconds)
    signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("image", nargs="?")
    parser.add_argument("--python-gen", help="directory of the generated sinew_pb2.py (build/release/clients/python/gen)")
    parser.add_argument("--sinewd", help="the host's build of sinewd, to compare a client session with")
    parser.add_argument("--ca-bundle", help="the CA bundle given to the build as its extra-ca secret")
    parser.add_argument("--run", choices=("auto", "podman", "chroot"), default="auto")
    parser.add_argument("--session", nargs=4, metavar=("TCP", "WS", "URDF", "APP_JS_BYTES"))
    args = parser.parse_args()
    if args.python_gen:
        os.environ["SINEW_PYTHON_GEN"] = args.python_gen
    if args.session:
        time_limit(SESSION_LIMIT_S)
        tcp, ws, urdf, app_bytes = args.session
        sys.exit(session(int(tcp), int(ws), urdf, int(app_bytes)))
    if not args.image or not args.python_gen:
        parser.error("IMAGE and --python-gen are needed")
    if os.geteuid() != 0:
        sys.exit("check_image.py: run as root (podman image mount, chroot and nsenter need it)")

    time_limit(TIME_LIMIT_S)
    image = args.image
    info = json.loads(run(["podman", "image", "inspect", image]).stdout)[0]
    say("== the image's configuration")
    env = check_config(info)

    say("== the image's layers and contents")
    ca_extra, ca_count = set(), 0
    if args.ca_bundle:
        ca_extra, ca_count = ca_extra_certificates(args.ca_bundle)
        say("       (the build's CA bundle %s: %d certificates, %d of them not Debian's)"
            % (args.ca_bundle, ca_count, len(ca_extra)))
    with tempfile.TemporaryDirectory(prefix="sinew-image-") as work:
        layers = read_layers(image, work)
        print_layers(info, layers)
        check_contents(layers, repo_hashes(), ca_extra)

        mount = run(["podman", "image", "mount", image]).stdout.strip()
        try:
            check_runnable(mount)
            check_deployment_commands(mount, info, env)
            web_app = resolve(mount, os.path.join(env.get("SINEW_WEB_ROOT", "/"), "app.js"))
            check(web_app is not None, "the dashboard bundle is at SINEW_WEB_ROOT (%s)" % env.get("SINEW_WEB_ROOT"))
            app_bytes = os.path.getsize(web_app) if web_app else 0
            run_image(image, info, env, mount, args, app_bytes)
        finally:
            run(["podman", "image", "unmount", image], check_rc=False)

    print("%d checks, %d failed" % (checks, len(failures)), flush=True)
    if failures:
        print("failed:\n  " + "\n  ".join(failures), flush=True)
    sys.exit(1 if failures else 0)


def run_image(image, info, env, mount, args, app_bytes):
    say("== running the image")
    runner = None
    if args.run in ("auto", "podman"):
        flags = PodmanRun.probe(image)
        if flags is not None:
            runner = PodmanRun(image, flags)
            say("run mode: podman run %s" % (" ".join(flags) or "(as it is)"))
        elif args.run == "podman":
            check(False, "podman run works on this machine")
            return
    if runner is None:
        runner = ChrootRun(image, info, mount)
        say("run mode: %s: podman run does not work on this machine" % runner.name
            if args.run == "auto" else "run mode: %s (asked for)" % runner.name)

    urdf_name = "double_pendulum.urdf"
    volume = tempfile.mkdtemp(prefix="sinew-models-")
    try:
        os.chmod(volume, 0o755)
        shutil.copy(os.path.join(ROOT, "tests", "model", "urdf", urdf_name), volume)
        os.chmod(os.path.join(volume, urdf_name), 0o644)
        extra = {"SINEW_DEMO_MODEL": "/var/lib/sinew/models/" + urdf_name}
        runner.start(volume, extra)
        try:
            run_checks(runner, info, env, extra, args, volume, urdf_name, app_bytes)
        finally:
            if runner.alive():
                say(runner.logs()[-3000:])
            runner.cleanup()
    finally:
        shutil.rmtree(volume, ignore_errors=True)


def run_checks(runner, info, env, extra, args, volume, urdf_name, app_bytes):
    pid = runner.pid
    cfg = info["Config"]
    with open("/proc/%d/status" % pid) as f:
        status = dict(l.split(":", 1) for l in f.read().splitlines() if ":" in l)
    uid, _, gid = cfg["User"].partition(":")
    uids, gids = status["Uid"].split(), status["Gid"].split()
    check(set(uids) == {uid} and set(gids) == {gid or uid},
          "sinewd runs as the image's user %s (uid %s, gid %s)" % (cfg["User"], status["Uid"].strip(), status["Gid"].strip()))
    check(int(status["CapEff"], 16) == 0 and int(status["CapPrm"], 16) == 0,
          "sinewd has no capabilities (CapEff %s)" % status["CapEff"].strip())
    with open("/proc/%d/cmdline" % pid, "rb") as f:
        cmdline = [a.decode() for a in f.read().split(b"\0") if a]
    want = (cfg.get("Entrypoint") or []) + (cfg.get("Cmd") or [])
    check(cmdline == want, "sinewd runs the image's entry point: %s" % cmdline)
    with open("/proc/%d/environ" % pid, "rb") as f:
        environ = dict(e.decode().split("=", 1) for e in f.read().split(b"\0") if b"=" in e)
    expected = container_env(env, extra)
    wrong = {k: environ.get(k) for k, v in expected.items() if environ.get(k) != v}
    check(not wrong, "sinewd has the image's environment and SINEW_DEMO_MODEL (differences: %s)" % (wrong or "none"))
    check(os.readlink("/proc/%d/cwd" % pid).endswith(cfg.get("WorkingDir") or "/"),
          "sinewd's working directory is the image's %s" % cfg.get("WorkingDir"))

    tcp, ws = int(env["SINEW_TCP_PORT"]), int(env["SINEW_WS_PORT"])
    netns = "--net=/proc/%d/ns/net" % pid
    session = subprocess.Popen(
        ["nsenter", netns, "/usr/bin/python3", "-B", HERE, "--python-gen", args.python_gen,
         "--session", str(tcp), str(ws), os.path.join(volume, urdf_name), str(app_bytes)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    q = None
    ready = False
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = session.stdout.readline()
        if not line:
            break
        relay(line)
        if line.startswith("session: q="):
            q = json.loads(line.split("=", 1)[1])
        if line.startswith("session: ready"):
            ready = True
            break
    check(ready, "the client session ran against the container")

    code, out = runner.healthcheck(info.get("Healthcheck", {}).get("Test", ["CMD"]))
    check(code == 0, "the image's HEALTHCHECK command says 0 while the server serves (%s)" % (out or code))

    if q is not None and args.sinewd and os.path.exists(args.sinewd):
        ref = reference_positions(args.sinewd, os.path.join(ROOT, "tests", "model", "urdf", urdf_name), args.python_gen)
        # The same sources, compiler and flags (-ffp-contract=off): only libm's patch release may differ
        # between the image and this machine, far below 1e-9 rad after 250 steps.
        diff = max(abs(q[k] - ref[k]) for k in q) if ref and set(ref) == set(q) else None
        check(diff is not None and diff < 1e-9,
              "the image's server computes what the host's build computes (max |dq| %s rad; is %s current?)"
              % (diff, args.sinewd))

    grace_ms = int(env.get("SINEW_SHUTDOWN_GRACE_MS", "2000"))
    code, seconds = runner.stop(grace_ms / 1000.0 + 10)
    check(code == 0, "SIGTERM (the image's stop signal) ends sinewd with status 0 (%d)" % code)
    check(seconds < grace_ms / 1000.0, "sinewd stopped in %.2f s, within the image's shutdown grace of %.1f s (%s)"
          % (seconds, grace_ms / 1000.0, runner.name.split(" (")[0]))
    say("shutdown: status %d in %.2f s" % (code, seconds))
    try:
        session.stdin.write("stopped\n")
        session.stdin.flush()
    except BrokenPipeError:
        pass
    for line in session.stdout:
        relay(line)
    check(session.wait(30) == 0, "the client session's checks passed")
    log = runner.logs()
    check("shutting down" in log and "reason=SIGTERM" in log, "the server's log says it shut down on SIGTERM")


def relay(line):
    """A line of the client session's output: its checks count here too."""
    global checks
    line = line.rstrip("\n")
    if line.startswith(("ok ", "FAIL ")):
        checks += 1
        if line.startswith("FAIL"):
            failures.append(line[6:])
    if not line.startswith("session: ") or line.startswith(("session: q", "session: ready")):
        print(line, flush=True)


if __name__ == "__main__":
    main()
