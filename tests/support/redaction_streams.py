"""Secrets split across the pieces of a stream, for the stream redaction tests: (pieces, the
secret parts that no piece may show, text that must still come through)."""

from __future__ import annotations

PEM_BODY = (
    "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8Pb",
    "nGy0AHB7MhgHcTz6sE2I2yPBq7Zp2Lk9Xv4Rt8Wm",
    "Qm7Zt2Lk9Xw4Rb8Nc1Vd5Hs3Jf6Gp0Ya2Ue4IoPq",
)
SPLIT_SECRETS: dict[str, tuple[list[str], list[str], list[str]]] = {
    "pem-line-by-line": (
        [
            "writing the deploy key:\n",
            "-----BEGIN RSA PRIVATE KEY-----\n",
            *(line + "\n" for line in PEM_BODY),
            "-----END RSA PRIVATE KEY-----\n",
            "key written to ~/.ssh/deploy\n",
        ],
        list(PEM_BODY),
        ["writing the deploy key:", "key written to ~/.ssh/deploy"],
    ),
    "label-then-value": (
        ["connecting to orders with the db password:", " Hunter2!Spring-77\n", "connected.\n"],
        ["Hunter2!Spring-77"],
        ["connected."],
    ),
    "yaml-block-scalar": (
        ["smtp:\n  user: alerts\n  password: |\n", "    Tangerine!Orbit42\n", "  port: 465\n"],
        ["Tangerine!Orbit42"],
        ["user: alerts", "port: 465"],
    ),
    "header-then-token": (
        [
            "> GET /v1/me HTTP/1.1\n> Authorization: Bearer ",
            "q7Zp2Lk9Xv4Rt8Wm3Nb6Yc1\n> Accept: */*\n",
        ],
        ["q7Zp2Lk9Xv4Rt8Wm3Nb6Yc1"],
        ["> Accept: */*"],
    ),
}
