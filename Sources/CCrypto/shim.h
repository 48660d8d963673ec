#ifndef ALERTD_CCRYPTO_SHIM_H
#define ALERTD_CCRYPTO_SHIM_H
#include <openssl/hmac.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#endif
