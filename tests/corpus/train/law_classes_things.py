"""The ambiguous words of the classes the law names, where they describe things: a button's
`disabled`, a banknote's `denomination`, an image's `orientation`, a test's `expecting`, a
ship's `nationality`, a golfer's `handicap`, a feature flag's `disabled`. Nothing here is a person's protected attribute."""


# expect: skipped
def render_button(label, disabled=False):
    css = "btn btn-muted" if disabled else "btn"
    return f'<button class="{css}">{label}</button>'


# expect: skipped
def count_notes(amount, denomination):
    return amount // denomination


# expect: skipped
def rotate_dims(width, height, orientation):
    if orientation in (90, 270):
        return height, width
    return width, height


# expect: skipped
def check_call(result, expecting):
    return result == expecting


# expect: skipped
def vessel_flag(nationality, tonnage):
    # A ship's flag state, not a person's.
    return f"{nationality}:{tonnage}t"


# expect: skipped
def golf_net_score(strokes, handicap):
    return strokes - handicap


# expect: skipped
def feature_state(flag_name, disabled, rollout):
    if disabled:
        return "off"
    return "on" if rollout >= 100 else f"{flag_name}:{rollout}%"
