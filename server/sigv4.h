/* SPDX-License-Identifier: MIT */
/* sigv4.h - AWS Signature Version 4, checked as AWS checks it: the keys
 * of --credentials (access key, secret, account), the Authorization
 * header and presigned query forms, the canonical request, the string to
 * sign and the signing key, with DynamoDB's errors in DynamoDB's order.
 * server/http.c asks before api_dispatch() and before the admin paths. */
#ifndef SHARDLOCAL_SIGV4_H
#define SHARDLOCAL_SIGV4_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/request.h"
#include "storage/storage.h"

#define SIGV4_SKEW_MS    (15u * 60u * 1000u)    /* AWS's 15 minutes */
#define SIGV4_KEYID_MAX  128                    /* AWS: 16 to 128 */
#define SIGV4_REGION_MAX 64

/* One line of the credentials file. */
struct sigv4_key {
    char *id;                       /* access key id (owned) */
    char *secret;                   /* secret access key (owned) */
    char account[13];               /* 12 digits */
};

struct sigv4_keys;                  /* the credentials file, by key id */

/*
 * Parse a credentials file's text: one "ACCESS_KEY_ID SECRET [ACCOUNT_ID]"
 * per line (blank lines and '#' comments allowed); a line without an
 * account gets default_account. origin names the text in messages. NULL
 * with one line in msg ("origin:line: ...") on a bad line, a duplicate
 * key id or no key at all.
 */
struct sigv4_keys *sigv4_keys_parse(const char *text, size_t len,
                                    const char *origin,
                                    const char *default_account, char *msg,
                                    size_t msgsz);
/* The same for the file at path (cannot read it: NULL, msg says why). */
struct sigv4_keys *sigv4_keys_load(const char *path,
                                   const char *default_account, char *msg,
                                   size_t msgsz);
void sigv4_keys_free(struct sigv4_keys *k);
/* The key called id, or NULL (borrowed from k). */
const struct sigv4_key *sigv4_keys_find(const struct sigv4_keys *k,
                                        const char *id);

/* A request as it arrived: what the client signed. */
struct sigv4_request {
    const char *method;
    const char *target;             /* request-target as sent: path[?query] */
    const struct http_header *hdr;  /* every header, in order (borrowed) */
    unsigned nhdr;
    const char *body;               /* the body's bytes as sent, before any
                                       Content-Encoding is undone */
    size_t len;
};

/* Who a request says it is: the credential scope's access key and region
 * (either form), and once verified, its key. */
struct sigv4_caller {
    char access_key[SIGV4_KEYID_MAX + 1];
    char region[SIGV4_REGION_MAX + 1];
    const struct sigv4_key *key;    /* NULL until verified (borrowed) */
};

/*
 * Any credentials accepted (the default mode): true when rq carries SigV4
 * credentials at all (an Authorization header starting "AWS4-", or an
 * X-Amz-Credential query argument), with whatever access key and region
 * its credential scope names copied into *caller (left empty when
 * malformed). key stays NULL.
 */
bool sigv4_scope(const struct sigv4_request *rq, struct sigv4_caller *caller);

/*
 * Verify rq's signature as AWS does, for service ("dynamodb") at now_ms
 * (the wall clock, epoch ms): 0 with *caller filled (its key found in
 * keys), or -1 with err set to the error DynamoDB answers, checked in
 * DynamoDB's order: MissingAuthenticationTokenException,
 * IncompleteSignatureException, InvalidSignatureException (a date more
 * than 15 minutes off, a credential scope for another service, a
 * signature that does not match), UnrecognizedClientException (an access
 * key that is not in keys).
 */
int sigv4_verify(const struct sigv4_keys *keys, const char *service,
                 uint64_t now_ms, const struct sigv4_request *rq,
                 struct sigv4_caller *caller, struct ddb_err *err);

/*
 * The steps, for the unit tests. The canonical request of rq for the
 * semicolon-separated, lower-case signed_headers (sorted here); presigned
 * leaves X-Amz-Signature out of the query. Caller frees.
 */
char *sigv4_canonical_request(const struct sigv4_request *rq,
                              const char *signed_headers, bool presigned);
/* The hex signature of string_to_sign with the key derived from secret,
 * date8 (YYYYMMDD), region and service. out holds 65 bytes. */
void sigv4_sign(const char *secret, const char *date8, const char *region,
                const char *service, const char *string_to_sign,
                char out[65]);

#endif
