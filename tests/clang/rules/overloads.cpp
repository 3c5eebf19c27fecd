// overloads.cpp: C++ overloads monitored by a rules file cannot be given
// distinct TF_TRACING_NAMEs: the later ones, in source order, are "name#2", ...
// no_instrument_function keeps a function out, as it does -finstrument-functions.
#include "fixture.h"
#include <cstdio>

static int area(int side) { return side * side; }
static double area(double r) { return 3 * r * r; }
static long area(long a, long b) { return a * b; }
__attribute__((no_instrument_function)) static int quiet(int x) { return x; }

int main()
{
    std::printf("%d\n", area(2));
    std::printf("%g\n", area(1.0));
    std::printf("%ld\n", area(2L, 3L));
    return quiet(0);
}
