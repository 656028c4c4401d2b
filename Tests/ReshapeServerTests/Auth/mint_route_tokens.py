"""Mints the tokens AuthRouteTests sends, with PyJWT and cryptography (PyPI): a real JWT
library signs them. `mint_route_tokens.py DIR` makes the keys (kept in DIR for a later call)
and prints one JSON object: the key set before and after a rotation, and each token by name.
`mint_route_tokens.py DIR short SUB SECONDS` prints one token of the first key expiring in
SECONDS."""
import base64, hashlib, hmac, json, os, sys, time
import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

ISS, AUD = "https://securetoken.google.com/my-app", "my-app"
ADA, GRACE = "-NqK3a9Xb2mLp0Rt7Yv1", "-NqK3a9Xb2mLp0Rt7Yv2"
directory = sys.argv[1]
now = int(time.time())

def key(name):
    path = os.path.join(directory, name + ".pem")
    if os.path.exists(path):
        with open(path, "rb") as f:
            return serialization.load_pem_private_key(f.read(), password=None)
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    with open(path, "wb") as f:
        f.write(private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))
    return private

def jwk(private, kid):
    value = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(private.public_key()))
    value.update(kid=kid, alg="RS256", use="sig")
    return value

def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

rsa1, rsa2, rsa3 = key("rsa-1"), key("rsa-2"), key("rsa-3")

def sign(private=None, kid="rsa-1", alg="RS256", **changes):
    claims = {"iss": ISS, "aud": AUD, "sub": ADA, "iat": now - 60, "exp": now + 3600,
              "email_verified": True, "tier": 3}
    for name, value in changes.items():
        if value is None:
            claims.pop(name, None)
        else:
            claims[name] = value
    return jwt.encode(claims, private or rsa1, algorithm=alg, headers={"kid": kid})

if len(sys.argv) > 2 and sys.argv[2] == "short":
    print(sign(sub=sys.argv[3], exp=now + int(sys.argv[4])))
    sys.exit(0)

tokens = {
    "ada": sign(),
    "grace": sign(sub=GRACE),
    "unverified_email": sign(email_verified=False),
    "no_tier": sign(tier=None),
    "rotated": sign(rsa2, kid="rsa-2"),
    "expired": sign(exp=now - 300),
    "wrong_aud": sign(aud="other-app"),
    "wrong_iss": sign(iss="https://securetoken.google.com/other"),
    "unknown_kid": sign(rsa3, kid="rsa-3"),
    "alg_none": jwt.encode({"iss": ISS, "aud": AUD, "sub": ADA, "iat": now - 60, "exp": now + 3600},
                           None, algorithm="none", headers={"kid": "rsa-1"}),
    "not_a_jwt": "this-is-not-a-jwt",
}
# HS256 with the RSA public key's PEM as the HMAC secret: the classic confusion attack. PyJWT
# itself refuses to do this, so the signature is made here.
pem = rsa1.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
header = b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": "rsa-1"}).encode())
payload = b64(json.dumps({"iss": ISS, "aud": AUD, "sub": ADA, "iat": now - 60, "exp": now + 3600}).encode())
tokens["hs256_public_key_secret"] = f"{header}.{payload}.{b64(hmac.new(pem, f'{header}.{payload}'.encode(), hashlib.sha256).digest())}"
# Ada's token with Grace put in as the subject: its signature no longer fits.
good_header, _, good_signature = tokens["ada"].split(".")
forged = b64(json.dumps({"iss": ISS, "aud": AUD, "sub": GRACE, "iat": now - 60, "exp": now + 3600}).encode())
tokens["bad_signature"] = f"{good_header}.{forged}.{good_signature}"

json.dump({
    "ada": ADA, "grace": GRACE,
    "jwks": {"keys": [jwk(rsa1, "rsa-1")]},
    "jwks_rotated": {"keys": [jwk(rsa2, "rsa-2"), jwk(rsa1, "rsa-1")]},
    "tokens": tokens,
}, sys.stdout)
