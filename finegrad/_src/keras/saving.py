"""saving"""
