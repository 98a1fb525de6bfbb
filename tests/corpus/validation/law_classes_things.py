"""The ambiguous words of the classes the law names where they describe things, in other
domains than train/law_classes_things.py: a screen's orientation, cash denominations, a
mailbox's `married` flag of a thread, an HTTP client `expecting` a status."""


# expect: skipped
def display_mode(screen_width, orientation):
    return "landscape" if orientation == "horizontal" else "portrait"


# expect: skipped
def cash_bundle(total, denomination=20):
    return [denomination] * (total // denomination)


# expect: skipped
def merge_thread(thread_id, married, replies):
    # Two mail threads joined into one ("married") keep the replies of both.
    return replies * 2 if married else replies


# expect: skipped
def wait_for(response_status, expecting=200):
    return "ok" if response_status == expecting else "retry"


# expect: skipped
def print_margin(page_count, orientation="portrait", duplex=False):
    margin = 10 if orientation == "portrait" else 15
    return margin * (2 if duplex else 1) * page_count
