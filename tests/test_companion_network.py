"""Finding the address the phones reach, without sending a packet."""

import pytest

from voicehost.companion import CompanionError, network

ROUTES = """Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask
wlan0\t00000000\t0101A8C0\t0003\t0\t0\t600\t00000000
wlan0\t0001A8C0\t00000000\t0001\t0\t0\t600\t00FFFFFF
docker0\t000011AC\t00000000\t0001\t0\t0\t0\t0000FFFF
"""


def test_default_route_interface_is_read_from_the_routing_table(tmp_path):
    route = tmp_path / "route"
    route.write_text(ROUTES)
    assert network._default_route_interfaces(route) == ["wlan0"]
    assert network._default_route_interfaces(tmp_path / "missing") == []


def test_lan_address_prefers_the_default_route_interface(monkeypatch):
    monkeypatch.setattr(network, "_default_route_interfaces", lambda: ["wlan0"])
    monkeypatch.setattr(network, "_interface_address",
                        lambda name: "192.168.1.23" if name == "wlan0" else None)
    assert network.lan_address() == "192.168.1.23"


def test_no_network_is_one_clear_sentence(monkeypatch):
    monkeypatch.setattr(network, "_default_route_interfaces", lambda: [])
    monkeypatch.setattr(network.socket, "gethostbyname_ex",
                        lambda host: (host, [], ["127.0.1.1"]))
    with pytest.raises(CompanionError, match="connect it to the table's Wi-Fi"):
        network.lan_address()


def test_loopback_interface_reads_its_own_address():
    assert network._interface_address("lo") == "127.0.0.1"
