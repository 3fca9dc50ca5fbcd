/* placeholder main */
int main(void) { return 0; }
