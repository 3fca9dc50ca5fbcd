/* SPDX-License-Identifier: MIT */
/* placeholder: module not written yet */
typedef int placeholder_partmap;
