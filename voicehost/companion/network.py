"""Which address the phones can reach this machine at, found without sending a packet.

The host serves the table's Wi-Fi, so the default is the IPv4 address of the
interface that carries the default route (read from ``/proc/net/route`` and
the interface's own address), else any non-loopback address of the host name.
"""

from __future__ import annotations

import socket
import struct
from pathlib import Path

from voicehost.companion.errors import CompanionError


def _interface_address(name: str) -> str | None:
    try:
        import fcntl
    except ImportError:  # not Linux
        return None
    siocgifaddr = 0x8915
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            packed = fcntl.ioctl(s.fileno(), siocgifaddr,
                                 struct.pack("256s", name[:15].encode()))
        except OSError:
            return None
    return socket.inet_ntoa(packed[20:24])


def _default_route_interfaces(route_file: Path = Path("/proc/net/route")) -> list[str]:
    try:
        lines = route_file.read_text().splitlines()[1:]
    except OSError:
        return []
    names = []
    for line in lines:
        fields = line.split()
        if len(fields) > 2 and fields[1] == "00000000":
            names.append(fields[0])
    return names


def lan_address() -> str:
    """This machine's address on the local network; one clear sentence if it has none."""
    for name in _default_route_interfaces():
        addr = _interface_address(name)
        if addr and not addr.startswith("127."):
            return addr
    try:
        _, _, addrs = socket.gethostbyname_ex(socket.gethostname())
    except OSError:
        addrs = []
    for addr in addrs:
        if not addr.startswith("127."):
            return addr
    raise CompanionError("this machine has no network address for the phones to reach; "
                         "connect it to the table's Wi-Fi (or pass --bind ADDRESS).")
