"""The receiver URL check and the address policy (issue 22, items 4 and 9), over tables."""

from __future__ import annotations

import ipaddress

import pytest

from app.service.receivers import BadURL, check_url, embedded_ipv4, host_refusal, refusal

REFUSED_ADDRESSES = [
    "127.0.0.1",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "255.255.255.255",
    "224.0.1.1",
    "::1",
    "::",
    "fe80::1",
    "fc00::1",
    "ff02::1",
    "::ffff:127.0.0.1",  # IPv4-mapped
    "::ffff:10.0.0.1",
    "::127.0.0.1",  # IPv4-compatible
    "::169.254.169.254",
    "64:ff9b::7f00:1",  # NAT64 of 127.0.0.1
    "64:ff9b::a00:1",  # NAT64 of 10.0.0.1
    "64:ff9b:1::808:808",  # local-use NAT64
    "2002:7f00:1::",  # 6to4 of 127.0.0.1
    "2002:c0a8:101::1",  # 6to4 of 192.168.1.1
    "2001:0:4136:e378:8000:63bf:80ff:fffe",  # Teredo, client 127.0.0.1
    "2001:0:4136:e378:8000:63bf:f5ff:fffe",  # Teredo, client 10.0.0.1
]
ALLOWED_ADDRESSES = [
    "8.8.8.8",
    "1.1.1.1",
    "2001:4860:4860::8888",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",  # NAT64 of 8.8.8.8
    "2002:808:808::1",  # 6to4 of 8.8.8.8
]


@pytest.mark.parametrize("address", REFUSED_ADDRESSES)
def test_non_public_addresses_are_refused_however_they_are_written(address: str) -> None:
    assert refusal(ipaddress.ip_address(address)) is not None
    assert host_refusal(address) is not None


@pytest.mark.parametrize("address", ALLOWED_ADDRESSES)
def test_public_addresses_are_allowed(address: str) -> None:
    assert refusal(ipaddress.ip_address(address)) is None


def test_embedded_ipv4_addresses_are_extracted() -> None:
    table = {
        "::ffff:127.0.0.1": "127.0.0.1",
        "::10.0.0.1": "10.0.0.1",
        "64:ff9b::c0a8:101": "192.168.1.1",
        "2002:c0a8:101::1": "192.168.1.1",
        "2001:0:4136:e378:8000:63bf:80ff:fffe": "127.0.0.1",
        "2001:4860:4860::8888": None,
    }
    for address, inner in table.items():
        found = embedded_ipv4(ipaddress.IPv6Address(address))
        assert (None if found is None else str(found)) == inner, address


BAD_URLS = [
    "http://127.1/x",  # IPv4 shorthand
    "http://2130706433/x",  # one number
    "http://0x7f000001/x",  # hexadecimal
    "http://0177.0.0.1/x",  # octal
    "http://127.0.0.01/x",  # a leading zero
    "http://1.2.3.4.5/x",
    "http://bot.example:99999/x",
    "http://bot.example:0/x",
    "http://bot.example:/x",
    "http://bot.example:http/x",
    "http://bot.example/\x00",
    "http://bot.example/\r\nX-Evil: 1",
    "http://bot.example/\t",
    "http://bot.example/a b",
    "http://bot\x00.example/",
    "http://user:pass@bot.example/",
    "http://bot.example\\@127.0.0.1/",
    "http://[fe80::1%25eth0]/",
    "http://[::1/",
    "http://bot..example/",
    "http://-bot.example/",
    "ftp://bot.example/",
    "//bot.example/",
    "http:///x",
    "bot.example",
]
GOOD_URLS = [
    "https://bot.example/referee",
    "http://bot.example:8080/hook?x=1",
    "http://127.0.0.1:8080/x",
    "http://[::1]:8080/x",
    "https://BOT.Example./x",
    "https://bücher.example/hook",
    "http://a_b.example/",
]


@pytest.mark.parametrize("url", BAD_URLS)
def test_malformed_or_ambiguous_urls_are_refused(url: str) -> None:
    with pytest.raises(BadURL):
        check_url(url)


@pytest.mark.parametrize("url", GOOD_URLS)
def test_well_formed_urls_pass(url: str) -> None:
    assert check_url(url).hostname
