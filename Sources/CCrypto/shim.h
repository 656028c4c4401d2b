#ifndef RESHAPE_CCRYPTO_SHIM_H
#define RESHAPE_CCRYPTO_SHIM_H

// OpenSSL's libcrypto (already loaded: libcurl links it): SHA-256 for cache keys, and the
// public keys and signature checks of JSON Web Tokens (ReshapeAuth). Thin wrappers only where
// Swift cannot call OpenSSL directly or where OpenSSL wants several calls for one step.
// The demo upstream signs its demo ID tokens with the last three (never Reshape itself).
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>

/// An RSA public key from a JWK's big-endian modulus and exponent; NULL if OpenSSL refuses it.
static inline EVP_PKEY *reshape_rsa_public_key(const unsigned char *n, size_t n_length, const unsigned char *e,
                                                size_t e_length) {
    EVP_PKEY *key = NULL;
    BIGNUM *modulus = BN_bin2bn(n, (int)n_length, NULL);
    BIGNUM *exponent = BN_bin2bn(e, (int)e_length, NULL);
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL);
    if (modulus && exponent && builder && context && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_N, modulus) &&
        OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_E, exponent) &&
        (params = OSSL_PARAM_BLD_to_param(builder)) != NULL && EVP_PKEY_fromdata_init(context) == 1) {
        if (EVP_PKEY_fromdata(context, &key, EVP_PKEY_PUBLIC_KEY, params) != 1) key = NULL;
    }
    if (key) {
        // OpenSSL's own checks of a public RSA key (odd modulus, exponent odd and above 1).
        EVP_PKEY_CTX *check = EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL);
        if (!check || EVP_PKEY_public_check(check) != 1) {
            EVP_PKEY_free(key);
            key = NULL;
        }
        EVP_PKEY_CTX_free(check);
    }
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(builder);
    EVP_PKEY_CTX_free(context);
    BN_free(modulus);
    BN_free(exponent);
    return key;
}

/// A P-256 public key from a JWK's 32-byte x and y; NULL unless OpenSSL takes it and the point
/// is on the curve.
static inline EVP_PKEY *reshape_ec_p256_public_key(const unsigned char *x, const unsigned char *y) {
    unsigned char point[65];
    point[0] = 0x04;  // uncompressed
    for (int i = 0; i < 32; i++) {
        point[1 + i] = x[i];
        point[33 + i] = y[i];
    }
    char group[] = "prime256v1";
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, group, 0),
        OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, point, sizeof point),
        OSSL_PARAM_construct_end(),
    };
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (context && EVP_PKEY_fromdata_init(context) == 1 &&
        EVP_PKEY_fromdata(context, &key, EVP_PKEY_PUBLIC_KEY, params) == 1) {
        EVP_PKEY_CTX *check = EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL);
        if (!check || EVP_PKEY_public_check(check) != 1) {
            EVP_PKEY_free(key);
            key = NULL;
        }
        EVP_PKEY_CTX_free(check);
    }
    EVP_PKEY_CTX_free(context);
    return key;
}

/// 1 when `signature` is `key`'s signature over `message` with `digest` (PKCS #1 v1.5 for RSA,
/// DER-encoded ECDSA for EC); 0 otherwise, errors included.
static inline int reshape_verify_signature(EVP_PKEY *key, const EVP_MD *digest, const unsigned char *signature,
                                           size_t signature_length, const unsigned char *message,
                                           size_t message_length) {
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    int valid = context && EVP_DigestVerifyInit(context, NULL, digest, NULL, key) == 1 &&
                EVP_DigestVerify(context, signature, signature_length, message, message_length) == 1;
    EVP_MD_CTX_free(context);
    return valid;
}

/// A JWS ECDSA signature (r and s, `half` bytes each) as DER, in `*der` (free with
/// `OPENSSL_free`); its length, or 0 on failure.
static inline int reshape_ecdsa_signature_der(const unsigned char *rs, size_t half, unsigned char **der) {
    ECDSA_SIG *signature = ECDSA_SIG_new();
    BIGNUM *r = BN_bin2bn(rs, (int)half, NULL);
    BIGNUM *s = BN_bin2bn(rs + half, (int)half, NULL);
    int length = 0;
    if (signature && r && s && ECDSA_SIG_set0(signature, r, s) == 1) {
        r = NULL;  // owned by the signature now
        s = NULL;
        length = i2d_ECDSA_SIG(signature, der);
        if (length < 0) length = 0;
    }
    BN_free(r);
    BN_free(s);
    ECDSA_SIG_free(signature);
    return length;
}

static inline void reshape_openssl_free(void *pointer) { OPENSSL_free(pointer); }

/// A new RSA key pair of `bits` bits (public exponent 65537); NULL on failure. `EVP_RSA_gen` is
/// a variadic macro, which Swift cannot call.
static inline EVP_PKEY *reshape_rsa_generate(unsigned int bits) { return EVP_RSA_gen(bits); }

/// The big-endian bytes of an RSA key's parameter `name` (`OSSL_PKEY_PARAM_RSA_N` "n" or
/// `OSSL_PKEY_PARAM_RSA_E` "e") in `out`; their count, or 0 if it does not fit or OpenSSL fails.
static inline size_t reshape_rsa_public_number(const EVP_PKEY *key, const char *name, unsigned char *out,
                                               size_t capacity) {
    BIGNUM *number = NULL;
    size_t length = 0;
    if (EVP_PKEY_get_bn_param(key, name, &number) == 1 && (size_t)BN_num_bytes(number) <= capacity) {
        length = (size_t)BN_bn2bin(number, out);
    }
    BN_free(number);
    return length;
}

/// `key`'s RS256 signature (PKCS #1 v1.5 with SHA-256) over `message` in `out`; its length, or 0
/// if it does not fit or OpenSSL fails.
static inline size_t reshape_sign_sha256(EVP_PKEY *key, const unsigned char *message, size_t message_length,
                                         unsigned char *out, size_t capacity) {
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    size_t length = capacity;
    int ok = context && EVP_DigestSignInit(context, NULL, EVP_sha256(), NULL, key) == 1 &&
             EVP_DigestSign(context, NULL, &length, message, message_length) == 1 && length <= capacity &&
             EVP_DigestSign(context, out, &length, message, message_length) == 1;
    EVP_MD_CTX_free(context);
    return ok ? length : 0;
}

#endif
