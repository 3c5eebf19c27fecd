/* hot.c: get_x and step are what the suggested rules exclude; work stays. */
static volatile int x;

int get_x(void) { return x; }
void step(void) { x++; }

int work(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += get_x() * i;
    step();
    return s;
}

int main(void) { return work(3) > 1000; }
