"""``finegrad.compat.v2`` is finegrad's own namespace, as ``tf.compat.v2`` is TensorFlow 2's:
code written in TF Quant Finance's style (``import tensorflow.compat.v2 as tf``) runs with
``import finegrad.compat.v2 as tf`` and gives TensorFlow's values and gradients."""
import importlib

import numpy as np
import pytest

import finegrad


def test_compat_v2_holds_the_packages_own_names():
    v2 = importlib.import_module("finegrad.compat.v2")
    assert finegrad.compat.v2 is v2 and v2.__all__ == finegrad.__all__
    assert set(dir(finegrad)) <= set(dir(v2))
    namespace = {}
    exec("from finegrad.compat.v2 import *", namespace)
    assert namespace["GradientTape"] is finegrad.GradientTape
    with pytest.raises(AttributeError, match="finegrad.compat.v2.*no_such_name"):
        _ = v2.no_such_name
    assert v2.compat.v1.placeholder is finegrad.compat.v1.placeholder
    assert v2.math.exp is finegrad.math.exp and v2.constant is finegrad.constant


def _normal_cdf(tf, x):
    return 0.5 * (1. + tf.math.erf(x / np.sqrt(2.)))


def black_scholes_price(tf, volatilities, strikes, expiries, spots, discount_rates,
                        is_call_options=None, dtype=None, name=None):
    """European option prices, written as TF Quant Finance's ``black_scholes.option_price``."""
    with tf.name_scope(name or "option_price"):
        strikes = tf.convert_to_tensor(strikes, dtype=dtype, name="strikes")
        dtype = strikes.dtype
        volatilities = tf.convert_to_tensor(volatilities, dtype=dtype, name="volatilities")
        expiries = tf.convert_to_tensor(expiries, dtype=dtype, name="expiries")
        spots = tf.convert_to_tensor(spots, dtype=dtype, name="spots")
        rates = tf.convert_to_tensor(discount_rates, dtype=dtype, name="discount_rates")
        discount_factors = tf.math.exp(-rates * expiries)
        forwards = spots / discount_factors
        sqrt_var = volatilities * tf.math.sqrt(expiries)
        d1 = tf.math.divide_no_nan(tf.math.log(forwards / strikes), sqrt_var) + sqrt_var / 2
        d2 = d1 - sqrt_var
        undiscounted_calls = forwards * _normal_cdf(tf, d1) - strikes * _normal_cdf(tf, d2)
        if is_call_options is None:
            return discount_factors * undiscounted_calls
        undiscounted_forward = forwards - strikes
        undiscounted_puts = undiscounted_calls - undiscounted_forward
        predicate = tf.broadcast_to(is_call_options, tf.shape(undiscounted_calls))
        return discount_factors * tf.where(predicate, undiscounted_calls, undiscounted_puts)


def annuity_by_loop(tf, rate, periods):
    """A while_loop accumulating discount factors, as TF Quant Finance's schedule helpers do."""
    def body(i, acc):
        return i + 1, acc + tf.math.pow(1. + rate, -tf.cast(i + 1, rate.dtype))
    _, total = tf.while_loop(lambda i, acc: i < periods, body,
                             (tf.constant(0), tf.zeros_like(rate)),
                             maximum_iterations=periods)
    return total


def _run(tf):
    spots = tf.constant([90., 100., 110.], dtype=tf.float64)
    vols = tf.constant([0.2, 0.25, 0.3], dtype=tf.float64)
    rate = tf.constant(0.03, dtype=tf.float64)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([spots, vols, rate])
        prices = black_scholes_price(tf, vols, 100., 1.5, spots, rate, dtype=tf.float64,
                                     is_call_options=tf.constant([True, False, True]))
        annuity = annuity_by_loop(tf, rate, 5)
    delta, vega = tape.gradient(prices, [spots, vols])
    d_annuity = tape.gradient(annuity, rate)
    price_fn = tf.function(lambda s, v: black_scholes_price(tf, v, 100., 1.5, s, rate,
                                                            dtype=tf.float64),
                           input_signature=[tf.TensorSpec([None], tf.float64)] * 2)
    return [np.asarray(v) for v in (prices, delta, vega, annuity, d_annuity,
                                    price_fn(spots, vols), price_fn(spots[:2], vols[:2]))]


def test_tf_quant_finance_style_code_gives_tensorflows_values_and_gradients():
    tf = pytest.importorskip("tensorflow")
    import finegrad.compat.v2 as fg_v2
    ours, theirs = _run(fg_v2), _run(tf.compat.v2)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_tf_quant_finance_style_code_against_closed_forms():
    import finegrad.compat.v2 as fg_v2
    prices, delta, vega, annuity, d_annuity, by_fn, by_fn2 = _run(fg_v2)
    from scipy.stats import norm
    s, v, r, k, t = np.array([90., 100., 110.]), np.array([0.2, 0.25, 0.3]), 0.03, 100., 1.5
    d1 = (np.log(s / k) + (r + v * v / 2) * t) / (v * np.sqrt(t))
    d2 = d1 - v * np.sqrt(t)
    call = s * norm.cdf(d1) - k * np.exp(-r * t) * norm.cdf(d2)
    put = call - s + k * np.exp(-r * t)
    np.testing.assert_allclose(prices, [call[0], put[1], call[2]], rtol=1e-12)
    np.testing.assert_allclose(delta, [norm.cdf(d1[0]), norm.cdf(d1[1]) - 1, norm.cdf(d1[2])],
                               rtol=1e-10)
    np.testing.assert_allclose(vega, s * norm.pdf(d1) * np.sqrt(t), rtol=1e-10)
    i = np.arange(1, 6)
    np.testing.assert_allclose(annuity, np.sum((1 + r) ** -i), rtol=1e-14)
    np.testing.assert_allclose(d_annuity, np.sum(-i * (1 + r) ** (-i - 1.)), rtol=1e-12)
    np.testing.assert_allclose(by_fn, call, rtol=1e-12)
    np.testing.assert_allclose(by_fn2, call[:2], rtol=1e-12)
