"""Running a test body on several Python threads at once."""
import threading


def run_in_threads(work, n, name=None, timeout=None):
    """Run ``work(i)`` for ``i`` in ``range(n)``, each on its own thread (named
    ``name.format(i)`` when given), all at once; return the exceptions they raised."""
    errors = []

    def guarded(i):
        try:
            work(i)
        except BaseException as e:  # noqa: BLE001 - reported to the test
            errors.append(e)

    threads = [threading.Thread(target=guarded, args=(i,),
                                name=None if name is None else name.format(i))
               for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
    return errors
