"""Placement of worlds over servers by rendezvous hashing (sinew.placement)."""

from sinew.placement import server_for, statefulset_servers


def test_same_answer_for_every_client_and_any_order():
    servers = statefulset_servers("sinew", 4, "sinew-pods", "robots")
    assert servers[2] == ("sinew-2.sinew-pods.robots.svc.cluster.local", 7420)
    for name in ("arm", "cell-7-arm", "gripper test", "w" * 63):
        assert server_for(name, servers) == server_for(name, list(reversed(servers)))


def test_removing_a_server_moves_only_its_worlds():
    servers = statefulset_servers("sinew", 5, "sinew-pods")
    names = ["world-%d" % i for i in range(2000)]
    before = {n: server_for(n, servers) for n in names}
    # Spread: each of 5 servers holds about 400 of 2000 worlds; 250..550 is more than 7 standard
    # deviations of a binomial(2000, 0.2) either side.
    for s in servers:
        assert 250 < sum(1 for v in before.values() if v == s) < 550
    gone = servers[3]
    after = {n: server_for(n, [s for s in servers if s != gone]) for n in names}
    moved = [n for n in names if before[n] != after[n]]
    assert moved and all(before[n] == gone for n in moved)
    assert len(moved) == sum(1 for v in before.values() if v == gone)
