"""Which server holds a world, when worlds are spread over several servers (deploy/README.md, "Placing
worlds"): rendezvous (highest-random-weight) hashing of the world's name over the list of servers.
Every client with the same list computes the same server; adding or removing a server moves only the
worlds that hash to it. Pure Python, no connection needed."""

import hashlib
from typing import Iterable, List, Tuple

#: A server: (host, TCP port).
Server = Tuple[str, int]


def _weight(world_name: str, server: Server) -> int:
    host, port = server
    digest = hashlib.blake2b(("%s\0%s:%d" % (world_name, host, port)).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def server_for(world_name: str, servers: Iterable[Server]) -> Server:
    """The (host, port) of `servers` (a sequence of (host, TCP port)) that holds `world_name`. Ties, which
    need equal 64-bit hashes, go to the server listed first."""
    servers = list(servers)
    if not servers:
        raise ValueError("server_for: no servers")
    best = servers[0]
    best_weight = _weight(world_name, best)
    for server in servers[1:]:
        w = _weight(world_name, server)
        if w > best_weight:
            best, best_weight = server, w
    return best


def statefulset_servers(name: str, replicas: int, service: str, namespace: str = "default", port: int = 7420,
                        cluster_domain: str = "cluster.local") -> List[Server]:
    """The servers of a Kubernetes StatefulSet `name` with `replicas` pods behind the headless Service
    `service` (deploy/kubernetes/sinew.yaml: name "sinew", service "sinew-pods"): [(host, port), ...]."""
    return [("%s-%d.%s.%s.svc.%s" % (name, i, service, namespace, cluster_domain), port) for i in range(replicas)]
