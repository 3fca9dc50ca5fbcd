/* SPDX-License-Identifier: MIT */
/* error.c - the wire form of a struct ddb_err: one table maps each error
 * type to its code, __type namespace, HTTP status and message-key casing
 * (the JSON 1.0 protocol's error shape). api_dispatch() replies with what
 * this builds. */

#include <string.h>

#include "api/proto/error.h"

#define NS_CORAL_SVC   "com.amazon.coral.service#"
#define NS_CORAL_VAL   "com.amazon.coral.validate#"
#define NS_CORAL_AVAIL "com.amazon.coral.availability#"
#define NS_DDB         "com.amazonaws.dynamodb.v20120810#"

enum msgkey { KEY_LOWER = 0, KEY_UPPER };   /* "message" or "Message" */

static const struct {
    const char *code;                   /* short code: "ValidationException" */
    const char *ns;                     /* __type namespace, ends in '#' */
    unsigned status;                    /* HTTP status */
    enum msgkey key;
} errtab[DDB_ERRTYPE_COUNT] = {
    [DDB_OK] = {
        "InternalServerError", NS_DDB, 500, KEY_LOWER },
    [DDB_VALIDATION] = {
        "ValidationException", NS_CORAL_VAL, 400, KEY_LOWER },
    /* DynamoDB spells this one "Message" (and often sends none). */
    [DDB_SERIALIZATION] = {
        "SerializationException", NS_CORAL_SVC, 400, KEY_UPPER },
    [DDB_UNKNOWN_OPERATION] = {
        "UnknownOperationException", NS_CORAL_SVC, 400, KEY_LOWER },
    [DDB_RESOURCE_NOT_FOUND] = {
        "ResourceNotFoundException", NS_DDB, 400, KEY_LOWER },
    [DDB_RESOURCE_IN_USE] = {
        "ResourceInUseException", NS_DDB, 400, KEY_LOWER },
    [DDB_LIMIT_EXCEEDED] = {
        "LimitExceededException", NS_DDB, 400, KEY_LOWER },
    [DDB_CONDITIONAL_CHECK_FAILED] = {
        "ConditionalCheckFailedException", NS_DDB, 400, KEY_LOWER },
    [DDB_THROUGHPUT_EXCEEDED] = {
        "ProvisionedThroughputExceededException", NS_DDB, 400, KEY_LOWER },
    [DDB_THROTTLING] = {
        "ThrottlingException", NS_CORAL_AVAIL, 400, KEY_LOWER },
    [DDB_REQUEST_LIMIT_EXCEEDED] = {
        "RequestLimitExceeded", NS_DDB, 400, KEY_LOWER },
    [DDB_ITEM_COLLECTION_SIZE_LIMIT] = {
        "ItemCollectionSizeLimitExceededException", NS_DDB, 400, KEY_LOWER },
    [DDB_TRANSACTION_CANCELED] = {
        "TransactionCanceledException", NS_DDB, 400, KEY_UPPER },
    [DDB_TRANSACTION_CONFLICT] = {
        "TransactionConflictException", NS_DDB, 400, KEY_LOWER },
    [DDB_TRANSACTION_IN_PROGRESS] = {
        "TransactionInProgressException", NS_DDB, 400, KEY_UPPER },
    [DDB_IDEMPOTENT_MISMATCH] = {
        "IdempotentParameterMismatchException", NS_DDB, 400, KEY_UPPER },
    [DDB_DUPLICATE_ITEM] = {
        "DuplicateItemException", NS_DDB, 400, KEY_LOWER },
    [DDB_MISSING_AUTH_TOKEN] = {
        "MissingAuthenticationTokenException", NS_CORAL_SVC, 400, KEY_LOWER },
    [DDB_INCOMPLETE_SIGNATURE] = {
        "IncompleteSignatureException", NS_CORAL_SVC, 400, KEY_LOWER },
    [DDB_INVALID_SIGNATURE] = {
        "InvalidSignatureException", NS_CORAL_SVC, 400, KEY_LOWER },
    [DDB_UNRECOGNIZED_CLIENT] = {
        "UnrecognizedClientException", NS_CORAL_SVC, 400, KEY_LOWER },
    [DDB_ACCESS_DENIED] = {
        "AccessDeniedException", NS_CORAL_SVC, 400, KEY_LOWER },
    /* DynamoDB Streams' own errors share DynamoDB's namespace (the
     * service model's 2012-08-10 version). */
    [DDB_EXPIRED_ITERATOR] = {
        "ExpiredIteratorException", NS_DDB, 400, KEY_LOWER },
    [DDB_TRIMMED_DATA] = {
        "TrimmedDataAccessException", NS_DDB, 400, KEY_LOWER },
    /* DynamoDB answers other paths and methods with a 404 whose body is
     * <UnknownOperationException/>; we send the same code as JSON so that
     * JS clients can parse it (the JSON 1.0 protocol). */
    [DDB_HTTP_NOT_FOUND] = {
        "UnknownOperationException", NS_CORAL_SVC, 404, KEY_LOWER },
    [DDB_REQUEST_TOO_LARGE] = {
        "RequestEntityTooLargeException", NS_CORAL_SVC, 413, KEY_LOWER },
    /* HTTP-level refusals (server/): DynamoDB answers a request line or
     * headers over 16 KB with a bare 400; the code here is ours, in JSON
     * so that every client can parse it. */
    [DDB_HTTP_BAD_REQUEST] = {
        "BadRequestException", NS_CORAL_SVC, 400, KEY_LOWER },
    /* shardlocal's own admin endpoints (server/cors.c). */
    [DDB_HTTP_FORBIDDEN] = {
        "AccessDeniedException", NS_CORAL_SVC, 403, KEY_LOWER },
    [DDB_HTTP_UNSUPPORTED_MEDIA] = {
        "UnsupportedMediaTypeException", NS_CORAL_SVC, 415, KEY_LOWER },
    /* DynamoDB's 503 (developer guide, "Error handling"): retried by every
     * SDK; shardlocal sends it when the request-body budget is spent. */
    [DDB_SERVICE_UNAVAILABLE] = {
        "ServiceUnavailable", NS_CORAL_AVAIL, 503, KEY_LOWER },
    [DDB_INTERNAL] = {
        "InternalServerError", NS_DDB, 500, KEY_LOWER },
    /* No DynamoDB table ever fills a disk, so DynamoDB has no error for
     * it. InternalServerError is in every operation's model (each SDK has
     * a class for it), is a server fault that SDKs retry, and says nothing
     * is wrong with the request: the same request succeeds once space is
     * free. A ValidationException would tell the caller to change it. */
    [DDB_STORAGE_FULL] = {
        "InternalServerError", NS_DDB, 500, KEY_LOWER },
};

static int
valid_type(enum ddb_errtype type)
{
    return (int)type > 0 && (int)type < DDB_ERRTYPE_COUNT &&
           errtab[type].code != NULL;
}

/* HTTP status for the error type (500 for anything unknown). */
unsigned
error_http_status(enum ddb_errtype type)
{
    return valid_type(type) ? errtab[type].status : 500;
}

/* The short code, e.g. "ValidationException". Never NULL. */
const char *
error_code(enum ddb_errtype type)
{
    return valid_type(type) ? errtab[type].code : "InternalServerError";
}

/*
 * Build {"__type": "<ns>#<Code>", "message"|"Message": msg, extras...}.
 * The message key is left out when msg is empty (DynamoDB's bare
 * SerializationException and UnknownOperationException). Extras are
 * copied from err->extra (borrowed). Returns a new reference, or NULL on
 * allocation failure.
 */
json_t *
error_body(const struct ddb_err *err)
{
    enum ddb_errtype type = err != NULL ? err->type : DDB_INTERNAL;
    char typebuf[160];
    json_t *body;
    const char *key, *k;
    json_t *v;

    if (!valid_type(type))
        type = DDB_INTERNAL;
    body = json_object();
    if (body == NULL)
        return NULL;
    strcpy(typebuf, errtab[type].ns);
    strcat(typebuf, errtab[type].code);
    json_object_set_new(body, "__type", json_string(typebuf));
    key = errtab[type].key == KEY_UPPER ? "Message" : "message";
    if (err != NULL && err->msg[0] != '\0') {
        /* A message that is not valid UTF-8 must not lose the error. */
        json_t *m = json_string(err->msg);

        if (m == NULL)
            m = json_string("Invalid UTF-8 in error message");
        json_object_set_new(body, key, m);
    }
    if (err != NULL && json_is_object(err->extra)) {
        json_object_foreach(err->extra, k, v)
            json_object_set(body, k, v);
    }
    return body;
}
