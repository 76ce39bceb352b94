

def test_the_caption_says_what_the_distance_shows():
    """Review 53: "notice how far this wrong rule's bars sit from the grey p bars" under bars 0.022 from p."""
    from ui.lessons.exact_fit import gap_words
    assert gap_words(0.30, False, 0.0, 2000).endswith("Notice where this wrong rule's bars leave the grey p bars.")
    near = gap_words(0.0217, False, 1e-6, 2000)
    assert "0.0217" in near and "sit near p to the eye; the fit test over 2000 rounds still tells them apart" in near
    assert "too close to p for the eye or for 2000 rounds to show" in gap_words(0.0217, False, 0.4, 2000)
    assert "pick a wrong rule above" in gap_words(0.0, True, 0.4, 2000)
