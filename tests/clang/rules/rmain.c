/* rmain.c: matched by no monitor line. */
#include "fixture.h"
#include <stdio.h>
int luaV_run(int n);
int main(void)
{
    printf("%d\n", luaV_run(20));
    return 0;
}
