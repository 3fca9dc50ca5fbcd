/* placeholder test */
#include <check.h>
#include <stdlib.h>
START_TEST(test_expr_placeholder) { ck_assert_int_eq(1, 1); }
END_TEST
int main(void) { Suite *s = suite_create("expr"); TCase *tc = tcase_create("p"); tcase_add_test(tc, test_expr_placeholder); suite_add_tcase(s, tc); SRunner *sr = srunner_create(s); srunner_run_all(sr, CK_ENV); int f = srunner_ntests_failed(sr); srunner_free(sr); return f ? EXIT_FAILURE : EXIT_SUCCESS; }
