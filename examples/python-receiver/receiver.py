"""A Herald webhook receiver in Python (standard library + the `cryptography` package).

Run: HERALD_WEBHOOK_PUBLIC_KEY=<subscription publicKey> python receiver.py
(PORT, HOST; TLS_CERT and TLS_KEY to serve HTTPS itself, else put it behind a TLS proxy).

Herald signs `<delivery id>.<timestamp>.<raw body>` with ECDSA P-256 / SHA-256; the signature header is r||s as 128
hex digits (IEEE P1363), the key the subscription's compressed SEC1 public key (66 hex digits).
"""
import json
import os
import ssl
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

TOLERANCE_SEC = 300
PUBLIC_KEY = ec.EllipticCurvePublicKey.from_encoded_point(
    ec.SECP256R1(), bytes.fromhex(os.environ["HERALD_WEBHOOK_PUBLIC_KEY"])
)
handled = set()  # deliveries are at-least-once: remember the ids handled (a database table in a real service)


class VerificationError(Exception):
    pass


def verify(headers, raw: bytes) -> dict:
    """The event, once the signature over the exact raw body has been checked; else VerificationError."""
    def header(name):
        value = headers.get(name)
        if not value:
            raise VerificationError(f"missing header {name}")
        return value.strip()

    delivery_id = header("X-Service-Webhook-Delivery-Id")
    timestamp = header("X-Service-Webhook-Timestamp")
    signature = header("X-Service-Webhook-Signature")
    if header("X-Service-Webhook-Algorithm") != "ECDSA_P256_SHA256":
        raise VerificationError("unsupported algorithm")
    if not timestamp.isdigit() or abs(time.time() - int(timestamp)) > TOLERANCE_SEC:
        raise VerificationError("timestamp missing or out of tolerance")
    try:
        rs = bytes.fromhex(signature)
    except ValueError:
        raise VerificationError("signature is not hex")
    if len(rs) != 64:
        raise VerificationError("signature is not 64 bytes (r||s)")
    der = encode_dss_signature(int.from_bytes(rs[:32], "big"), int.from_bytes(rs[32:], "big"))
    try:
        PUBLIC_KEY.verify(der, f"{delivery_id}.{timestamp}.".encode() + raw, ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise VerificationError("invalid signature")
    return json.loads(raw.decode("utf-8"))


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            event = verify(self.headers, raw)
        except VerificationError as err:
            print(json.dumps({"verified": False, "reason": str(err)}, separators=(",", ":")), flush=True)
            self.send_response(400)
            self.end_headers()
            return
        delivery_id = self.headers["X-Service-Webhook-Delivery-Id"]
        if delivery_id not in handled:
            handled.add(delivery_id)
            line = {"verified": True, "deliveryId": delivery_id, "eventId": event["id"], "eventType": event["eventType"]}
            print(json.dumps(line, separators=(",", ":")), flush=True)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    server = ThreadingHTTPServer((os.environ.get("HOST", "127.0.0.1"), int(os.environ.get("PORT", "4001"))), Handler)
    scheme = "http"
    if os.environ.get("TLS_CERT") and os.environ.get("TLS_KEY"):
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(os.environ["TLS_CERT"], os.environ["TLS_KEY"])
        server.socket = context.wrap_socket(server.socket, server_side=True)
        scheme = "https"
    print(f"listening on {scheme}://{server.server_address[0]}:{server.server_address[1]}", flush=True)
    server.serve_forever()
