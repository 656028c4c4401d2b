"""Mints the tokens TokenVerifierTests checks, with PyJWT and cryptography (PyPI): a real JWT
library signs them, so the verifier is judged against what others write. Prints one JSON
object: the key sets, the time the tokens are checked at, and each token by name."""
import base64, hashlib, hmac, json, sys
import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

NOW = 1_800_000_000
ISS, AUD = "https://securetoken.google.com/my-app", "my-app"

rsa1 = rsa.generate_private_key(public_exponent=65537, key_size=2048)
rsa2 = rsa.generate_private_key(public_exponent=65537, key_size=2048)
ec1 = ec.generate_private_key(ec.SECP256R1())

def jwk(private, kid):
    key = json.loads(jwt.algorithms.get_default_algorithms()["RS256" if isinstance(private, rsa.RSAPrivateKey) else "ES256"].to_jwk(private.public_key()))
    key["kid"] = kid
    return key

def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

claims = {"iss": ISS, "aud": AUD, "sub": "user-7", "iat": NOW - 60, "exp": NOW + 3600,
          "email_verified": True, "tier": 3, "email": "ada@example.com"}

def sign(key, alg, kid, **changes):
    body = dict(claims)
    for name, value in changes.items():
        if value is None:
            body.pop(name, None)
        else:
            body[name] = value
    return jwt.encode(body, key, algorithm=alg, headers={"kid": kid})

tokens = {
    "rs256": sign(rsa1, "RS256", "rsa-1"),
    "es256": sign(ec1, "ES256", "ec-1"),
    "rs384": sign(rsa1, "RS384", "rsa-1"),
    "aud_list": sign(rsa1, "RS256", "rsa-1", aud=["other", AUD]),
    "expired": sign(rsa1, "RS256", "rsa-1", exp=NOW - 100),
    "expired_within_leeway": sign(rsa1, "RS256", "rsa-1", exp=NOW - 10),
    "wrong_aud": sign(rsa1, "RS256", "rsa-1", aud="other-app"),
    "wrong_iss": sign(rsa1, "RS256", "rsa-1", iss="https://securetoken.google.com/other"),
    # The audience with its last letter decomposed (e + U+0301): it looks the same, it is not.
    "aud_decomposed": sign(rsa1, "RS256", "rsa-1", aud="my-appe\u0301"),
    "nbf_future": sign(rsa1, "RS256", "rsa-1", nbf=NOW + 600),
    "iat_future": sign(rsa1, "RS256", "rsa-1", iat=NOW + 600),
    "no_exp": sign(rsa1, "RS256", "rsa-1", exp=None),
    "no_sub": sign(rsa1, "RS256", "rsa-1", sub=None),
    "empty_sub": sign(rsa1, "RS256", "rsa-1", sub=""),
    "unknown_kid": sign(rsa2, "RS256", "rsa-2"),
    "es256_naming_rsa_key": sign(ec1, "ES256", "rsa-1"),
    "alg_none": jwt.encode(claims, None, algorithm="none", headers={"kid": "rsa-1"}),
}

# HS256 with the RSA public key's PEM as the HMAC secret: the classic confusion attack. PyJWT
# itself refuses to do this, so the signature is made here.
pem = rsa1.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
header = b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": "rsa-1"}).encode())
payload = b64(json.dumps(claims).encode())
signature = hmac.new(pem, f"{header}.{payload}".encode(), hashlib.sha256).digest()
tokens["hs256_public_key_secret"] = f"{header}.{payload}.{b64(signature)}"

# The RS256 token with another subject put in: its signature no longer fits.
good_header, _, good_signature = tokens["rs256"].split(".")
tampered = b64(json.dumps(dict(claims, sub="admin")).encode())
tokens["bad_signature"] = f"{good_header}.{tampered}.{good_signature}"

keys = [jwk(rsa1, "rsa-1"), jwk(ec1, "ec-1"), {"kty": "oct", "k": "c2VjcmV0", "kid": "hmac-1"}]
json.dump({
    "now": NOW, "issuer": ISS, "audience": AUD,
    "jwks": {"keys": keys},
    "jwks_rotated": {"keys": keys + [jwk(rsa2, "rsa-2")]},
    "tokens": tokens,
}, sys.stdout)
