/* wdlib: a library wdapp dlopens while a watchdog runs (mode dldeadlock): its
 * lock calls are rerouted from the watchdog's next period on. */
#include <pthread.h>
#include <tf/tf.h>

TF_GROUP(locks);

static pthread_mutex_t la = PTHREAD_MUTEX_INITIALIZER, lb = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both;

TF_MONITOR(locks) void lib_take(pthread_mutex_t *first, pthread_mutex_t *second)
{
    pthread_mutex_lock(first);
    pthread_barrier_wait(&both);
    pthread_mutex_lock(second);
}

static void *one(void *arg)
{
    lib_take(&la, &lb);
    return arg;
}

static void *two(void *arg)
{
    lib_take(&lb, &la);
    return arg;
}

void lib_deadlock(void);
void lib_deadlock(void)
{
    pthread_t t;
    pthread_barrier_init(&both, NULL, 2);
    pthread_create(&t, NULL, one, NULL);
    pthread_create(&t, NULL, two, NULL);
}
