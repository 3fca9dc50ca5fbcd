/* SPDX-License-Identifier: MIT */
/* api.c - the operation table: every DynamoDB operation shardlocal serves,
 * sorted by its X-Amz-Target name so api_lookup() can bsearch() it. The
 * handlers live in api/op_*.c; server/http.c calls them through here. */

#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/ops/ops.h"
#include "api/tables/tables.h"

/* Sorted by name (strcmp order): api_lookup() depends on it. */
static const struct api_op api_ops[] = {
    { "BatchGetItem",   api_batch_get_item,   API_READ  },
    { "BatchWriteItem", api_batch_write_item, API_WRITE },
    { "CreateTable",   api_create_table,   API_DDL   },
    { "DeleteItem",    api_delete_item,    API_WRITE },
    { "DeleteTable",   api_delete_table,   API_DDL   },
    { "DescribeContributorInsights", api_describe_contributor_insights,
      API_DDL },
    { "DescribeTable", api_describe_table, API_DDL   },
    { "GetItem",       api_get_item,       API_READ  },
    { "ListContributorInsights", api_list_contributor_insights, API_DDL },
    { "ListTables",    api_list_tables,    API_DDL   },
    { "PutItem",       api_put_item,       API_WRITE },
    { "Query",         api_query,          API_READ  },
    { "Scan",          api_scan,           API_READ  },
    { "TransactGetItems",   api_transact_get_items,   API_READ  },
    { "TransactWriteItems", api_transact_write_items, API_WRITE },
    { "UpdateContributorInsights", api_update_contributor_insights,
      API_DDL },
    { "UpdateItem",    api_update_item,    API_WRITE },
    { "UpdateTable",   api_update_table,   API_DDL   },
};

static int
op_cmp(const void *key, const void *elem)
{
    return strcmp((const char *)key, ((const struct api_op *)elem)->name);
}

/* Find an operation by its exact (case-sensitive) name; NULL if none. */
const struct api_op *
api_lookup(const char *name)
{
    if (name == NULL)
        return NULL;
    return bsearch(name, api_ops, sizeof(api_ops) / sizeof(api_ops[0]),
                   sizeof(api_ops[0]), op_cmp);
}
