#!/usr/bin/python3
"""Checks of deploy/ that need no container engine (none runs in CI):

- deploy/Dockerfile: multi-stage on Debian 12; the build stage uses scripts/install-deps.sh and
  scripts/build.sh (what CI runs); the runtime stage copies only the server, the health check and the
  dashboard bundle from it, runs as a non-root user, has a HEALTHCHECK and the sinewd entry point.
- deploy/compose.yaml: parses; the service builds deploy/Dockerfile, publishes 7420 and 7421, mounts a
  volume for models, and stops later than the shutdown grace.
- deploy/kubernetes/*.yaml: parse; a StatefulSet or Deployment with readiness and liveness probes on
  /healthz, resource requests, Prometheus scrape annotations for /metrics, a non-root security context,
  and terminationGracePeriodSeconds covering the preStop pause plus SINEW_SHUTDOWN_GRACE_MS; a Service
  selecting its pods.
- Every SINEW_* variable in these files is one that `sinewd --help` documents.
- deploy/healthcheck.sh against a real sinewd (loopback, free ports): 0 while it serves, non-zero after.

usage: check_deploy.py SINEWD   (CTest passes the built server)
"""

import os
import re
import signal
import subprocess
import sys
import tempfile
import time

import yaml  # Debian's python3-yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEPLOY = os.path.join(ROOT, "deploy")
failures = []
checks = 0


def check(ok, what):
    global checks
    checks += 1
    if not ok:
        failures.append(what)
        print("FAIL  %s" % what)
    else:
        print("ok    %s" % what)


def sinewd_variables(sinewd):
    """The SINEW_* names and defaults that sinewd --help documents."""
    out = subprocess.run([sinewd, "--help"], capture_output=True, text=True, timeout=30).stdout
    names = set(re.findall(r"\[(SINEW_[A-Z0-9_]+)\]", out))
    grace = re.search(r"\[SINEW_SHUTDOWN_GRACE_MS\] default (\d+)", out)
    return names, int(grace.group(1)) if grace else None


def variables_in(text):
    return set(re.findall(r"\b(SINEW_[A-Z0-9_]+)\b", text))


# ---- Dockerfile ---------------------------------------------------------------------------------------

def dockerfile_instructions(path):
    """[(stage index, INSTRUCTION, arguments)] with continuation lines joined and comments dropped."""
    lines = []
    current = ""
    with open(path) as f:
        for raw in f:
            line = raw.rstrip("\n")
            if not current and line.lstrip().startswith("#"):
                continue
            if line.endswith("\\"):
                current += line[:-1] + " "
                continue
            current += line
            if current.strip():
                lines.append(current.strip())
            current = ""
    out = []
    stage = -1
    for line in lines:
        word, _, rest = line.partition(" ")
        word = word.upper()
        if word == "FROM":
            stage += 1
        out.append((stage, word, rest.strip()))
    return out


def check_dockerfile(known):
    path = os.path.join(DEPLOY, "Dockerfile")
    ins = dockerfile_instructions(path)
    # Global ARGs (before the first FROM) with their defaults, as FROM lines use them.
    args = dict(a.split("=", 1) for stage, word, a in ins if word == "ARG" and stage < 0 and "=" in a)
    froms = [re.sub(r"\$\{(\w+)\}", lambda m: args.get(m.group(1), m.group(0)), a).split()[0]
             for _, word, a in ins if word == "FROM"]
    check(len(froms) >= 2, "Dockerfile is multi-stage (%d stages)" % len(froms))
    check(all(re.match(r"debian:(12|bookworm)(-slim)?\b", f) or f == "scratch" for f in froms),
          "every stage is Debian 12 (or scratch): %s" % froms)
    last = len(froms) - 1
    build_runs = " ".join(args for stage, word, args in ins if word == "RUN" and stage < last)
    check("scripts/install-deps.sh" in build_runs, "the build stage installs with scripts/install-deps.sh")
    check("scripts/build.sh release" in build_runs, "the build stage builds with scripts/build.sh release")
    for script in ("scripts/install-deps.sh", "scripts/build.sh", "deploy/healthcheck.sh", "deploy/runtime-root.sh",
                   "deploy/with-extra-ca.sh", "deploy/runtime-packages"):
        check(os.path.isfile(os.path.join(ROOT, script)), "%s exists" % script)
    # Every step that fetches (apt, npm) can trust the build's extra CA bundle, and only through the secret.
    for what in ("install-deps.sh", "build.sh release", "runtime-root.sh"):
        runs = [a for stage, word, a in ins if word == "RUN" and stage < last and what in a]
        check(runs and all("--mount=type=secret,id=extra-ca" in a and "with-extra-ca.sh" in a for a in runs),
              "the step running %s mounts the extra-ca secret and runs through with-extra-ca.sh" % what)
    check(not re.search(r"(COPY|ADD)\s[^\n]*\.(pem|crt)\b", open(path).read()),
          "no certificate file is copied into any stage (the CA bundle is a secret)")
    final = [(word, args) for stage, word, args in ins if stage == last]
    copies = [args for word, args in final if word == "COPY"]
    check(copies and all(a.startswith("--from=") for a in copies), "the runtime stage copies only from the build stages: %s" % copies)
    check(not any(word in ("RUN", "ADD") for word, _ in final), "the runtime stage runs nothing at build time")
    shipped = " ".join(args for _, word, args in ins if word == "RUN" and "/out/" in args)
    for thing in ("server/sinewd", "clients/web/dist", "deploy/healthcheck.sh", "models/"):
        check(thing in shipped, "the image ships %s" % thing)
    check(not re.search(r"/out/\S*(tests|bench|node_modules|\.a\b)", shipped), "the image ships no tests, benchmarks or packages")
    users = [args for word, args in final if word == "USER"]
    check(users and users[-1].split(":")[0] not in ("root", "0"), "runs as a non-root user: %s" % users)
    health = [args for word, args in final if word == "HEALTHCHECK"]
    check(health and "sinew-healthcheck" in health[-1], "has a HEALTHCHECK (on /healthz via healthcheck.sh)")
    entry = [args for word, args in final if word == "ENTRYPOINT"]
    check(entry and "sinewd" in entry[-1], "the entry point is sinewd")
    exposed = " ".join(args for word, args in final if word == "EXPOSE").split()
    check("7420" in exposed and "7421" in exposed, "exposes 7420 and 7421")
    env = " ".join(args for word, args in final if word == "ENV")
    check("SINEW_HOST=0.0.0.0" in env, "listens on every interface of the container (SINEW_HOST=0.0.0.0)")
    used = variables_in(open(path).read())
    check(used <= known, "Dockerfile uses only sinewd's variables (unknown: %s)" % sorted(used - known))
    return used


def runtime_packages():
    """The package names of deploy/runtime-packages."""
    names = []
    with open(os.path.join(DEPLOY, "runtime-packages")) as f:
        for line in f:
            names.extend(line.split("#", 1)[0].split())
    return names


def installed_closure(packages):
    """The installed packages that `packages` need (Depends and Pre-Depends, recursively), from dpkg."""
    seen = set()
    todo = list(packages)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        out = subprocess.run(["dpkg-query", "-W", "-f=${Status}\t${Depends}, ${Pre-Depends}", name],
                             capture_output=True, text=True)
        if out.returncode != 0 or "install ok installed" not in out.stdout:
            continue
        seen.add(name)
        for group in out.stdout.split("\t", 1)[1].split(","):
            for alternative in group.split("|"):
                dep = alternative.strip().split(" ")[0].split(":")[0]
                if dep:
                    todo.append(dep)
    return seen


def check_runtime_libraries(sinewd):
    """sinewd's shared libraries (as this machine's loader resolves them) all come from a package of
    deploy/runtime-packages or one they depend on: the image's root file system holds exactly those."""
    listed = runtime_packages()
    check(len(listed) > 0 and all(re.match(r"^[a-z0-9][a-z0-9+.-]+$", p) and not p.endswith("-dev") for p in listed),
          "deploy/runtime-packages names run-time packages, no -dev ones: %s" % " ".join(listed))
    closure = installed_closure(listed)
    out = subprocess.run(["ldd", sinewd], capture_output=True, text=True, timeout=30).stdout
    if re.search(r"\blib(asan|ubsan|tsan|lsan)\.so", out):
        # The image ships the release build; this sanitizer build links the sanitizers' runtimes.
        print("skip  sinewd's shared libraries against deploy/runtime-packages: a sanitizer build (the release "
              "run checks them)")
        return
    missing = []
    for line in out.splitlines():
        m = re.match(r"\s*(\S+) => (/\S+)", line)
        if not m:
            continue
        soname, path = m.groups()
        real = os.path.realpath(path)
        # Merged /usr: dpkg knows a file by the path its package ships (/lib/... or /usr/lib/...).
        candidates = {path, real} | {p[4:] for p in (path, real) if p.startswith("/usr/")} | \
                     {"/usr" + p for p in (path, real) if not p.startswith("/usr/")}
        owners = set()
        for c in candidates:
            got = subprocess.run(["dpkg", "-S", c], capture_output=True, text=True)
            if got.returncode == 0:
                owners |= {o.strip().split(":")[0] for o in got.stdout.split(":", 1)[0].split(",")}
        if not owners & closure:
            missing.append("%s (%s)" % (soname, ", ".join(sorted(owners)) or "no package"))
    check(not missing, "every shared library sinewd links comes from deploy/runtime-packages or their dependencies "
          "(add the run-time package of: %s)" % (", ".join(missing) or "none missing"))


# ---- compose ------------------------------------------------------------------------------------------

def check_compose(known, grace_ms):
    path = os.path.join(DEPLOY, "compose.yaml")
    with open(path) as f:
        doc = yaml.safe_load(f)
    services = doc.get("services", {})
    check(len(services) >= 1, "compose.yaml has a service")
    svc = next(iter(services.values()))
    build = svc.get("build", {})
    check(build.get("dockerfile") == "deploy/Dockerfile", "compose builds deploy/Dockerfile")
    context = os.path.normpath(os.path.join(DEPLOY, build.get("context", ".")))
    check(context == ROOT, "compose's build context is the repository root")
    ports = [str(p) for p in svc.get("ports", [])]
    check(any(p.endswith(":7420") for p in ports) and any(p.endswith(":7421") for p in ports),
          "compose publishes 7420 and 7421: %s" % ports)
    volumes = [str(v) for v in svc.get("volumes", [])]
    check(any("models" in v for v in volumes) and "models" in (doc.get("volumes") or {}),
          "compose mounts a volume for models: %s" % volumes)
    env = svc.get("environment", {})
    check(set(env) <= known, "compose sets only sinewd's variables (unknown: %s)" % sorted(set(env) - known))
    own_grace = int(env.get("SINEW_SHUTDOWN_GRACE_MS", grace_ms))
    stop = svc.get("stop_grace_period", "10s")
    seconds = float(re.match(r"(\d+(?:\.\d+)?)s$", stop).group(1))
    check(seconds * 1000 > own_grace, "compose stops (%s) later than the shutdown grace (%d ms)" % (stop, own_grace))


# ---- Kubernetes ---------------------------------------------------------------------------------------

def check_kubernetes(known, grace_ms):
    directory = os.path.join(DEPLOY, "kubernetes")
    docs = []
    for name in sorted(os.listdir(directory)):
        if name.endswith((".yaml", ".yml")):
            with open(os.path.join(directory, name)) as f:
                docs.extend(d for d in yaml.safe_load_all(f) if d)
    kinds = [d.get("kind") for d in docs]
    check(all(d.get("apiVersion") and d.get("kind") and d.get("metadata", {}).get("name") for d in docs),
          "every manifest has apiVersion, kind and a name")
    workloads = [d for d in docs if d["kind"] in ("StatefulSet", "Deployment")]
    check(len(workloads) >= 1, "a StatefulSet or Deployment (kinds: %s)" % kinds)
    services = [d for d in docs if d["kind"] == "Service"]
    check(len(services) >= 1, "a Service")
    for w in workloads:
        spec = w["spec"]
        pod = spec["template"]
        labels = pod["metadata"].get("labels", {})
        check(spec["selector"]["matchLabels"].items() <= labels.items(), "%s selects its own pods" % w["kind"])
        check(any(s["spec"].get("selector", {}).items() <= labels.items() for s in services),
              "a Service selects the pods of the %s" % w["kind"])
        ann = pod["metadata"].get("annotations", {})
        check(ann.get("prometheus.io/scrape") == "true" and ann.get("prometheus.io/path") == "/metrics"
              and ann.get("prometheus.io/port") == "7421", "Prometheus scrape annotations for /metrics on 7421")
        pspec = pod["spec"]
        sc = pspec.get("securityContext", {})
        check(sc.get("runAsNonRoot") is True and sc.get("runAsUser", 0) != 0, "pods run as non-root")
        containers = pspec["containers"]
        c = next((x for x in containers if x["name"] == "sinewd"), containers[0])
        named_ports = {p.get("name"): p["containerPort"] for p in c.get("ports", [])}
        for probe in ("readinessProbe", "livenessProbe"):
            get = c.get(probe, {}).get("httpGet", {})
            port = named_ports.get(get.get("port"), get.get("port"))
            check(get.get("path") == "/healthz" and port == 7421, "%s on /healthz (port 7421)" % probe)
        req = c.get("resources", {}).get("requests", {})
        check("cpu" in req and "memory" in req, "resource requests for cpu and memory: %s" % req)
        env = {e["name"]: e.get("value") for e in c.get("env", [])}
        check(set(env) <= known, "the container sets only sinewd's variables (unknown: %s)" % sorted(set(env) - known))
        check(env.get("SINEW_HOST") == "0.0.0.0", "the server listens on the pod's interfaces")
        own_grace = int(env.get("SINEW_SHUTDOWN_GRACE_MS") or grace_ms)
        pre = c.get("lifecycle", {}).get("preStop", {})
        pause = 0.0
        if "exec" in pre and pre["exec"]["command"][:1] == ["sleep"]:
            pause = float(pre["exec"]["command"][1])
        elif "sleep" in pre:
            pause = float(pre["sleep"]["seconds"])
        period = pspec.get("terminationGracePeriodSeconds", 30)
        # SIGKILL comes `period` s after the pod starts terminating: the preStop pause, then SIGTERM and
        # the server's grace, must fit with a second to spare.
        check(period >= pause + own_grace / 1000.0 + 1.0,
              "terminationGracePeriodSeconds %s covers preStop %.0f s + shutdown grace %.1f s" % (period, pause, own_grace / 1000.0))


# ---- the health check against a real server -----------------------------------------------------------

def check_healthcheck(sinewd):
    script = os.path.join(DEPLOY, "healthcheck.sh")
    with tempfile.TemporaryDirectory(prefix="sinew-deploy-") as tmp:
        port_file = os.path.join(tmp, "ports")
        log = open(os.path.join(tmp, "sinewd.log"), "w")
        proc = subprocess.Popen([sinewd, "--host", "127.0.0.1", "--tcp-port", "0", "--ws-port", "0", "--no-demo",
                                 "--port-file", port_file], stdout=log, stderr=log)
        try:
            deadline = time.monotonic() + 15
            ws = None
            while ws is None and time.monotonic() < deadline and proc.poll() is None:
                try:
                    ports = dict(l.strip().split("=") for l in open(port_file) if "=" in l)
                    ws = int(ports["ws"]) if "ws" in ports and "tcp" in ports else None
                except (FileNotFoundError, KeyError, ValueError):
                    pass
                time.sleep(0.02)
            check(ws is not None, "sinewd started for the health check")
            if ws is None:
                return
            env = dict(os.environ, SINEW_WS_PORT=str(ws))
            up = subprocess.run(["bash", script], env=env, timeout=10)
            check(up.returncode == 0, "healthcheck.sh says 0 while sinewd serves")
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            log.close()
        check(proc.returncode == 0, "sinewd exits 0 on SIGTERM")
        down = subprocess.run(["bash", script, str(ws)], timeout=10, stderr=subprocess.DEVNULL)
        check(down.returncode != 0, "healthcheck.sh says non-zero once sinewd has stopped")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sinewd = sys.argv[1]
    known, grace_ms = sinewd_variables(sinewd)
    check(len(known) > 20 and grace_ms is not None, "sinewd --help lists its variables (%d)" % len(known))
    check_dockerfile(known)
    check_runtime_libraries(sinewd)
    check_compose(known, grace_ms)
    check_kubernetes(known, grace_ms)
    check_healthcheck(sinewd)
    print("%d checks, %d failed" % (checks, len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
